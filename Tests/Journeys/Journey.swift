import Foundation
package import GatewayClient
import GatewayClientHTTP2
import RPC
import Synchronization
package import TestSupport

/// What a journey runs against: one address (the edge of a `JourneyStack`), the fake APNs
/// its pushes reach, and the operator's grant of roles. The tests and the mixed-load benchmark
/// run the same journeys; each step checks what its user sees and throws `JourneyFailure`
/// naming the step when it is not that.
package struct JourneyContext: Sendable {
    package let stack: any JourneyTarget
    /// Told of every unary call (the benchmark's latency and error figures).
    package let observer: (@Sendable (String, Duration, GatewayError?) -> Void)?
    /// The longest a journey waits for something another service does after a call (an event
    /// followed, a push sent, a reveal): bounded, never a fixed sleep.
    package let patience: Duration
    /// Seconds from a Momento event's creation to its release time: long enough for the
    /// journey's uploads before it (longer under load).
    package let revealDelay: Double

    package init(stack: any JourneyTarget, observer: (@Sendable (String, Duration, GatewayError?) -> Void)? = nil,
                 patience: Duration = .seconds(20), revealDelay: Double = 6) {
        self.stack = stack
        self.observer = observer
        self.patience = patience
        self.revealDelay = revealDelay
    }

    var apns: FakeAPNs {
        get throws {
            guard let apns = stack.apns else { throw JourneyFailure("the journey needs a stack started with push") }
            return apns
        }
    }

    /// A new app install: a client of `app` talking to the edge, with its own token store (a
    /// new one unless `tokenStore` is given, e.g. to read the session the client keeps).
    package func client(_ app: String, in clients: Clients, tokenStore: InMemoryTokenStore = InMemoryTokenStore()) throws
        -> GatewayClient {
        var configuration = GatewayConfiguration(host: stack.edgeHost, port: stack.edgePort, security: stack.edgeSecurity, app: app,
                                                 deviceName: "journey")
        configuration.callObserver = observer
        let client = try GatewayClient(configuration: configuration, tokenStore: tokenStore)
        clients.add(client)
        return client
    }

    /// Polls `read` (every 25 ms, up to `patience`) until `condition` holds of what it returns;
    /// throws naming `what` when it never does.
    package func eventually<T: Sendable>(_ what: String, _ read: () async throws -> T,
                                 until condition: (T) -> Bool) async throws -> T {
        let deadline = ContinuousClock.now + patience
        while true {
            let value = try await read()
            if condition(value) { return value }
            guard ContinuousClock.now < deadline else { throw JourneyFailure("timed out waiting for \(what); last saw \(value)") }
            try await Task.sleep(for: .milliseconds(25))
        }
    }

    /// Calls `call` again while it fails with `reason` (something another service has not yet
    /// learned from an event), up to `patience`.
    package func retrying<T: Sendable>(while reason: String, _ call: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + patience
        while true {
            do {
                return try await call()
            } catch let error as GatewayError where error.reason == reason && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(25))
            }
        }
    }

    /// The pushes to `deviceToken` once one of `category` has arrived at the fake APNs.
    @discardableResult
    package func push(to deviceToken: String, category: String) async throws -> FakeAPNs.Request {
        let seen = try await apns.waitFor(deviceToken, timeout: patience) { $0.contains { $0.category == category } }
        return seen.first { $0.category == category }!  // waitFor returned because one is there
    }

    /// A random APNs device token (64 hex digits).
    package static func deviceToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// A fresh email address.
    package static func email(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(12).lowercased())@example.com" }

    package static let password = "correct horse battery staple"
}

/// The clients one journey opened, closed together when it ends.
package final class Clients: Sendable {
    private let clients = Mutex<[GatewayClient]>([])

    /// None yet.
    package init() {}

    func add(_ client: GatewayClient) { clients.withLock { $0.append(client) } }

    package func close() { clients.withLock { $0.forEach { $0.close() } } }
}

/// A step of a journey that did not show its user what it should.
package struct JourneyFailure: Error, CustomStringConvertible {
    package let description: String

    init(_ description: String) { self.description = description }
}

/// What `call` answered or the refusal it met, as a value to switch over.
func outcome<T>(_ call: () async throws -> T) async -> Result<T, any Error> {
    do {
        return .success(try await call())
    } catch {
        return .failure(error)
    }
}

/// Throws `JourneyFailure(what)` unless `condition` holds.
func check(_ condition: Bool, _ what: @autoclosure () -> String) throws {
    guard condition else { throw JourneyFailure(what()) }
}

/// Runs `call`, which must be refused with `code` and `reason`; returns the refusal.
@discardableResult
func refused(_ code: StatusCode, _ reason: String, _ what: String, _ call: () async throws -> Void) async throws -> GatewayError {
    do {
        try await call()
    } catch let error as GatewayError {
        try check(error.code == code && error.reason == reason,
                  "\(what): expected \(code) \(reason), got \(error.code) \(error.reason ?? "no reason") \(error.message)")
        return error
    }
    throw JourneyFailure("\(what): was not refused")
}

/// The five products' journeys, by name (the benchmark's `--journeys`).
package enum JourneyCatalog {
    package static let all: [String: @Sendable (JourneyContext) async throws -> Void] = [
        "elite": { try await EliteJourney(context: $0).run() },
        "firstdate": { try await FirstDateJourney(context: $0).run() },
        "swivo": { try await SwivoJourney(context: $0).run() },
        "unseen": { try await UnseenJourney(context: $0).run() },
        "momento": { try await MomentoJourney(context: $0).run() },
    ]

    /// Messaging's settings the journeys need: The Unseen's encounter stages a second long
    /// (the production values are minutes), its sweeper quick.
    package static let messagingEnvironment = [
        "RV_ENCOUNTER_MEANINGFUL_SECONDS": "1", "RV_ENCOUNTER_IN_PERSON_SECONDS": "1",
        "RV_ENCOUNTER_COOLDOWN_SECONDS": "1", "RV_ENCOUNTER_SWEEP_SECONDS": "0.1",
    ]
}
