package import Auth
package import Contracts
import Foundation
package import Logging
package import RPC
import Synchronization

/// Keeps a `RevocationList` current from identity's `SessionsRevoked` and
/// `AccountClaimsChanged` events.
///
/// The list lives in memory, so unlike `EventConsumer` the feed stores no cursor: it starts
/// with the events of the last `replay` (`WatchEvents` with `occurred_after`, which covers every
/// access token that can still be valid), then follows live ones, and after a broken stream
/// resumes after the last event it applied.
package struct RevocationFeed: Sendable {
    /// The event types the feed asks for.
    package static let eventTypes = ["SessionsRevoked", "AccountClaimsChanged"]

    /// Streams the events of a request to a handler until cancelled; throws when the stream breaks.
    package typealias Source = @Sendable (Events.WatchEventsRequest,
                                          @Sendable (Events.Event) async throws -> Void) async throws -> Void

    package let list: RevocationList
    /// How far back the first request starts: at least the access-token lifetime plus leeway.
    package let replay: Duration
    package let logger: Logger
    private let source: Source

    package init(list: RevocationList, replay: Duration = .seconds(15 * 60 + 60), logger: Logger, source: @escaping Source) {
        self.list = list
        self.replay = replay
        self.logger = logger
        self.source = source
    }

    /// Follows identity's `WatchEvents` over `client`, presenting `credential`.
    package static func remote(list: RevocationList, client: RPCClient, credential: ServiceCredential?,
                               replay: Duration = .seconds(15 * 60 + 60), logger: Logger) -> RevocationFeed {
        RevocationFeed(list: list, replay: replay, logger: logger) { request, handle in
            let stream = try await client.serverStreaming(
                path: "/\(EventStreamClient.serviceName)/WatchEvents", request: request, as: Events.Event.self,
                options: credential.map { CallOptions.service($0) } ?? CallOptions())
            for try await event in stream {
                try await handle(event)
            }
            let status = await stream.status()
            if status.code != .ok { throw status }
        }
    }

    /// Follows the outbox of `events` directly: identity's own instances, which must also hear
    /// of revocations made by their siblings.
    package static func local(list: RevocationList, events: EventStreamService,
                              replay: Duration = .seconds(15 * 60 + 60), logger: Logger) -> RevocationFeed {
        RevocationFeed(list: list, replay: replay, logger: logger) { request, handle in
            try await events.follow(request) { try await handle($0) }
        }
    }

    /// Follows the events until the task is cancelled, reconnecting with backoff.
    package func run() async {
        let applied = LastCursor()
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            var request = Events.WatchEventsRequest(afterCursor: applied.value, types: Self.eventTypes)
            if applied.value == 0 {
                let since = Date().addingTimeInterval(-Double(replay.components.seconds))
                request.occurredAfter = Timestamp(microseconds: Int64(since.timeIntervalSince1970 * 1_000_000))
            }
            do {
                try await source(request) { event in
                    apply(event)
                    applied.value = event.cursor
                }
                backoff = .milliseconds(100)
            } catch {
                if Task.isCancelled { return }
                logger.warning("revocation feed broke; reconnecting", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: backoff * Double.random(in: 0.5..<1.5))
                backoff = min(backoff * 2, .seconds(10))
            }
        }
    }

    /// Applies one event to the list; other types and undecodable payloads are skipped (logged).
    package func apply(_ event: Events.Event) {
        do {
            switch event.type {
            case "SessionsRevoked":
                let revoked = try Identity.SessionsRevoked(serializedBytes: event.payload)
                list.revokeSessions(revoked.sessionIDs, validUntil: Self.milliseconds(revoked.validUntil))
            case "AccountClaimsChanged":
                let changed = try Identity.AccountClaimsChanged(serializedBytes: event.payload)
                list.claimsChanged(accountID: changed.accountID, notBefore: Self.milliseconds(changed.notBefore),
                                   validUntil: Self.milliseconds(changed.validUntil))
            default:
                return
            }
        } catch {
            logger.error("undecodable revocation event skipped", metadata: ["cursor": "\(event.cursor)", "type": "\(event.type)"])
        }
    }

    /// Unix milliseconds of `timestamp` (0 when absent).
    static func milliseconds(_ timestamp: Timestamp?) -> Int64 {
        guard let timestamp else { return 0 }
        return timestamp.seconds * 1000 + Int64(timestamp.nanos / 1_000_000)
    }
}

/// The cursor of the last event applied, shared by the feed's loop and its event handler.
private final class LastCursor: Sendable {
    private let cursor = Atomic<Int64>(0)

    var value: Int64 {
        get { cursor.load(ordering: .acquiring) }
        set { cursor.store(newValue, ordering: .releasing) }
    }
}
