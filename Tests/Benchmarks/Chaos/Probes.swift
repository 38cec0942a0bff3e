import Contracts
import Foundation
import GatewayClient
import Synchronization

/// One signed-in client per service asking it a cheap read every `interval` through the edge,
/// without retries and with a short deadline: when each service answered and when it did not.
/// A fault's recovery is read from here.
final class Probes: Sendable {
    struct Sample: Sendable {
        let service: String
        let at: ContinuousClock.Instant
        var ok: Bool
        /// Why it failed: the status code (and reason).
        var failure = ""
    }

    private let samples = Mutex<[Sample]>([])
    private let calls: [(String, @Sendable () async throws -> Void)]
    private let clients: [GatewayClient]

    private init(calls: [(String, @Sendable () async throws -> Void)], clients: [GatewayClient]) {
        self.calls = calls
        self.clients = clients
    }

    static func make(_ population: Population) async throws -> Probes {
        let elite = try population.client("elite", retries: false, deadline: .seconds(2))
        _ = try await population.eliteMember(on: elite)
        let firstdate = try population.client("firstdate", retries: false, deadline: .seconds(2))
        _ = try await firstdate.identity.signUpWithEmail(Population.email("chaos-probe"), password: Population.password)
        let momento = try population.client("momento", retries: false, deadline: .seconds(2))
        _ = try await momento.identity.signInAnonymously()
        var request = Momento.CreateEventRequest()
        request.title = "Probe"
        request.maxPhotosPerMember = 1
        request.releaseAt = Timestamp(microseconds: Int64((Date().timeIntervalSince1970 + 86_400) * 1_000_000))
        let event = try await momento.momento.create(request)
        return Probes(calls: [
            ("identity", { _ = try await elite.identity.getAccount() }),
            ("discovery", { _ = try await elite.discovery.quota() }),
            ("messaging", { _ = try await elite.messaging.unreadCount() }),
            ("production", { _ = try await firstdate.production.seasons() }),
            ("media", { _ = try await momento.momento.event(event.eventID) }),
        ], clients: [elite, firstdate, momento])
    }

    static let services = ["identity", "discovery", "messaging", "production", "media"]

    func run(until end: ContinuousClock.Instant, interval: Duration = .milliseconds(250)) async {
        await withTaskGroup(of: Void.self) { group in
            for (service, call) in calls {
                group.addTask {
                    while ContinuousClock.now < end {
                        var sample = Sample(service: service, at: .now, ok: true)
                        do {
                            try await call()
                        } catch {
                            sample.ok = false
                            sample.failure = (error as? GatewayError).map { "\($0.code) \($0.reason ?? "")" } ?? "\(error)"
                        }
                        let taken = sample
                        self.samples.withLock { $0.append(taken) }
                        try? await Task.sleep(for: interval)
                    }
                }
            }
        }
    }

    /// From `returned` (a dependency back, an instance replaced) to the last failed probe of any
    /// service before `until`: zero when none failed after it. Nil when no probe answered OK
    /// after the last failure (the stack never recovered in the window).
    /// `service` limits it to one service's probes (a fault of one of its instances).
    func recovery(after returned: ContinuousClock.Instant, until: ContinuousClock.Instant, service: String? = nil) -> Duration? {
        let window = samples.withLock { $0.filter { $0.at >= returned && $0.at <= until && (service == nil || $0.service == service) } }
        guard let lastFailure = window.last(where: { !$0.ok }) else { return .zero }
        let answeredSince = window.contains { $0.ok && $0.at > lastFailure.at && $0.service == lastFailure.service }
        return answeredSince ? lastFailure.at - returned : nil
    }

    /// Probes that failed between `start` and `end`.
    func failures(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant, service: String? = nil) -> Int {
        samples.withLock { $0.filter { !$0.ok && $0.at >= start && $0.at <= end && (service == nil || $0.service == service) }.count }
    }

    /// Failed probes by service and status, over the whole run.
    var failuresByStatus: [String: Int] {
        samples.withLock { samples in
            samples.filter { !$0.ok }.reduce(into: [:]) { $0["\($1.service) \($1.failure)", default: 0] += 1 }
        }
    }

    func close() { clients.forEach { $0.close() } }
}
