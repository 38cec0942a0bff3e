package import Auth
package import Contracts
package import Logging
package import Postgres
package import RPC

/// Applies another service's events exactly once: follows its `WatchEvents` stream, applies
/// the events and stores the cursor in the same transaction of the consumer's own schema,
/// and reconnects with backoff when the stream breaks.
///
/// Events the stream has already delivered are applied together, up to `batchLimit` in one
/// transaction: a consumer catching up on a long history (a new service's backfill, a restart
/// after downtime) pays one commit per batch instead of one per event, while a consumer that is
/// up to date still applies each event as it arrives.
///
/// Each event is applied in a consumer span continuing the producer's trace (`EventSpan`), so
/// its statements, calls and log lines (`trace_id`, `span_id`) belong to the trace that caused it.
///
/// An event whose payload does not decode is skipped (logged and counted, `UndecodableEvents`):
/// retrying it could never succeed, and would hold up every event after it.
///
/// `WatchEvents` is an internal method: the producer refuses a consumer without a service
/// credential it accepts (UNAUTHENTICATED, retried with backoff like any broken stream).
package struct EventConsumer: Sendable {
    /// Names the stream this consumer follows (a key in `<schema>.event_cursors`).
    package let source: String
    package let schema: String
    package let pool: PostgresPool
    package let client: RPCClient
    package let types: [String]
    /// This service's credential, presented to the producer on every `WatchEvents` call.
    package let credential: ServiceCredential?
    package let logger: Logger
    /// Most events applied in one transaction.
    package let batchLimit: Int
    /// Applies one event inside the consumer's transaction; throwing rolls back the events of
    /// that transaction and the consumer retries them after a backoff, except for a decoding
    /// failure (`WireDecodingError`), which skips the event.
    package let apply: @Sendable (Events.Event, Connection) async throws -> Void
    /// The events skipped because they do not decode (`ServiceContext.follow` exports the count).
    package let undecodable: UndecodableEvents
    /// How far behind the producer this consumer is (`ServiceContext.follow` exports it and
    /// fails `/readyz` past the bound).
    package let lag = ConsumerLag()

    package init(source: String, schema: String, pool: PostgresPool, client: RPCClient, types: [String] = [],
                 credential: ServiceCredential? = nil, batchLimit: Int = 256,
                 logger: Logger = Logger(label: "rendezvous.events.consumer"),
                 apply: @escaping @Sendable (Events.Event, Connection) async throws -> Void) throws {
        guard Outbox.isIdentifier(schema) else {
            throw PostgresError(code: .protocolViolation, context: "consumer schema must be a lower-case identifier")
        }
        self.source = source
        self.schema = schema
        self.pool = pool
        self.client = client
        self.types = types
        self.credential = credential
        self.batchLimit = max(1, batchLimit)
        self.logger = logger
        self.apply = apply
        undecodable = UndecodableEvents(source: source, logger: logger)
    }

    /// The cursor table, for the consumer's migration list.
    package static func ddl(schema: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(schema).event_cursors (
            source text PRIMARY KEY,
            cursor bigint NOT NULL DEFAULT 0,
            updated_at timestamptz NOT NULL DEFAULT now()
        );
        """
    }

    /// The cursor stored for `source` (0 when none).
    package func storedCursor() async throws -> Int64 {
        try await pool.withConnection { connection in
            let rows = try await connection.query("SELECT cursor FROM \(schema).event_cursors WHERE source = $1", [.text(source)])
            return rows.isEmpty ? 0 : try rows[0].decode(0)
        }
    }

    /// Follows the stream until the task is cancelled.
    package func run() async {
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                try await followOnce()
                lag.failed()
                backoff = .milliseconds(100)
            } catch {
                lag.failed()
                if Task.isCancelled { return }
                logger.warning("event stream broke; reconnecting", metadata: [
                    "source": "\(source)", "error": "\(error)", "backoff_ms": "\(backoff.components.seconds * 1000 + backoff.components.attoseconds / 1_000_000_000_000_000)",
                ])
                let jitter = Double.random(in: 0.5..<1.5)
                try? await Task.sleep(for: backoff * jitter)
                backoff = min(backoff * 2, .seconds(10))
            }
        }
    }

    /// One connection's worth of following: resumes after the stored cursor.
    private func followOnce() async throws {
        try await pool.withConnection { connection in
            _ = try await connection.execute(
                "INSERT INTO \(schema).event_cursors (source) VALUES ($1) ON CONFLICT DO NOTHING", [.text(source)])
        }
        let after = try await storedCursor()
        let stream = try await client.serverStreaming(
            path: "/\(EventStreamClient.serviceName)/WatchEvents",
            request: Events.WatchEventsRequest(afterCursor: after, types: types),
            as: Events.Event.self, options: credential.map { CallOptions.service($0) } ?? CallOptions())
        lag.opened()
        // The stream goes on from where it is, not from the stored cursor: the cursor this
        // stream has brought the store to, to notice when the store loses it.
        var reached = after
        while true {
            let events = try await stream.nextBatch(limit: batchLimit)
            guard let first = events.first, let last = events.last else { break }
            let now = ConsumerLag.now()
            lag.received(oldest: first.occurredAt?.validMicroseconds ?? now, now: now)
            reached = try await applyOnce(events, reached: reached)
            lag.applied(more: events.count == batchLimit, newest: last.occurredAt?.validMicroseconds ?? now)
        }
        let status = await stream.status()
        if status.code != .ok { throw status }
    }

    /// Applies, in one transaction and in stream order, each of `events` whose cursor is not
    /// recorded yet; the row lock on the cursor makes two consumer instances with the same
    /// source apply each event once between them. Returns the cursor stored now.
    ///
    /// A stored cursor below `reached` (where this stream's earlier transactions left it) means
    /// those commits were lost with what they applied: a crash after commits acknowledged
    /// before they reached the disk (`synchronous_commit = off`), a failover to a standby that
    /// had not received them, a restore to an earlier time. The events between are not sent
    /// again on this stream, so it is dropped (`CursorWentBack`) and followed again from the
    /// stored cursor.
    private func applyOnce(_ events: [Events.Event], reached: Int64) async throws -> Int64 {
        var stored = reached
        repeat {
            stored = try await undecodable.skipping { undecodable in
                try await applyTransaction(events, reached: stored, endingAt: undecodable)
            }
        } while stored < events.last?.cursor ?? stored  // it ended at an undecodable event: the rest follow
        return stored
    }

    /// One transaction of `applyOnce`: every event after the stored cursor, or, given the cursor
    /// of an event that does not decode (`UndecodableEvents`), those before it, then the cursor
    /// moved to it.
    private func applyTransaction(_ events: [Events.Event], reached: Int64, endingAt undecodable: Int64?) async throws -> Int64 {
        try await pool.withTransaction { connection in
            let rows = try await connection.query(
                "SELECT cursor FROM \(schema).event_cursors WHERE source = $1 FOR UPDATE", [.text(source)])
            let stored: Int64 = rows.isEmpty ? 0 : try rows[0].decode(0)
            if stored < reached { throw CursorWentBack(source: source, stored: stored, reached: reached) }
            var applied = stored
            for event in events where event.cursor > applied {
                if let undecodable, event.cursor >= undecodable {
                    applied = undecodable
                    break
                }
                try await EventSpan.consume(event.type, context: EventTraceContext(event), messageID: event.id,
                                            consumer: source) {
                    try await UndecodableEvents.apply(event) { try await apply(event, connection) }
                }
                applied = event.cursor
            }
            guard applied > stored else { return stored }
            _ = try await connection.execute(
                "UPDATE \(schema).event_cursors SET cursor = $2, updated_at = now() WHERE source = $1",
                [.text(source), .int64(applied)])
            return applied
        }
    }
}

/// The stored cursor of a consumer is behind where its open stream had brought it: commits
/// were lost, and the consumer follows again from the stored cursor.
struct CursorWentBack: Error, CustomStringConvertible {
    let source: String
    let stored: Int64
    let reached: Int64

    var description: String {
        "the stored cursor of \(source) went back from \(reached) to \(stored) (commits lost); following again from \(stored)"
    }
}
