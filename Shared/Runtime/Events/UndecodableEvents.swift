package import Contracts
package import Logging
import Synchronization
package import Wire

/// The events a follower skips because their payload does not decode, so that one bad event
/// cannot stop every event after it. Decoding is a function of the bytes: a transaction that
/// stopped on such an event would stop on it again at every retry, and a follower that retried
/// forever would leave every later event unapplied (and, for a consumer, fail `/readyz` on its
/// lag). So the transaction is rolled back (nothing of the bad event stays) and run again to
/// end at that event, without it: the events before it are applied and the follower's cursor
/// moves past it, then the follower carries on with the events after it. Each skipped event is
/// logged as an error with its cursor, id and type (it stays in its producer's outbox, to be
/// looked at there) and counted (`count`, exported as `event_consumer_skipped_events`).
package final class UndecodableEvents: Sendable {
    /// Names the follower in the log and the metric.
    package let source: String
    private let logger: Logger
    private let skipped = Atomic<Int>(0)

    package init(source: String, logger: Logger) {
        self.source = source
        self.logger = logger
    }

    /// Events skipped since this follower started.
    package var count: Int { skipped.load(ordering: .relaxed) }

    /// Runs `transaction(nil)`, which applies events in cursor order; when it stops on an
    /// undecodable event (`apply(_:_:)` below), runs `transaction(cursor)` with that event's
    /// cursor: it must apply the events before that cursor, skip the event at it and apply none
    /// after it, and store the cursor, so every earlier event is applied once however many bad
    /// ones follow it. The caller carries on after it.
    package func skipping<T>(_ transaction: (_ undecodable: Int64?) async throws -> T) async throws -> T {
        do {
            return try await transaction(nil)
        } catch let undecodable as UndecodableEvent {
            skipped.add(1, ordering: .relaxed)
            logger.error("event skipped: its payload does not decode", metadata: [
                "source": "\(source)", "cursor": "\(undecodable.cursor)", "event_id": "\(undecodable.id)",
                "event_type": "\(undecodable.type)", "error": "\(undecodable.error)",
            ])
            return try await transaction(undecodable.cursor)
        }
    }

    /// Runs `body`, which applies `event`; a decoding failure inside it (the payload, or a
    /// message inside it) stops the transaction as `UndecodableEvent`, for `skipping(_:)`.
    package static func apply(_ event: Events.Event, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as WireDecodingError {
            throw UndecodableEvent(cursor: event.cursor, id: event.id, type: event.type, error: error)
        }
    }
}

/// An event whose payload does not decode (`UndecodableEvents`).
package struct UndecodableEvent: Error, CustomStringConvertible {
    package let cursor: Int64
    package let id: String
    package let type: String
    package let error: WireDecodingError

    package var description: String { "event \(id) (\(type), cursor \(cursor)) does not decode: \(error)" }
}
