import Contracts
import Logging
import Postgres
import Runtime

/// Plans pushes from messaging's own realtime outbox, in batches: each transaction locks the
/// cursor (`messaging.event_cursors`, source `push-realtime`), reads the next events below the
/// outbox's horizon (every transaction that could still add an older one has ended), plans them
/// and moves the cursor, so with several instances each event is planned once and none is
/// skipped. A first start begins at the current end of the outbox, not at its history. Each
/// event is planned in a span continuing its producer's trace (`EventSpan`). An event whose
/// payload does not decode plans nothing and is passed over (`UndecodableEvents`).
struct RealtimePushFollower: Sendable {
    static let source = "push-realtime"
    static let batchSize = 500

    let pool: PostgresPool
    let feed: RealtimeFeed
    let notifier: OutboxNotifier
    let planner: PushPlanner
    let pollInterval: Duration
    let logger: Logger
    let undecodable: UndecodableEvents

    init(pool: PostgresPool, feed: RealtimeFeed, notifier: OutboxNotifier, planner: PushPlanner, pollInterval: Duration,
         logger: Logger) {
        self.pool = pool
        self.feed = feed
        self.notifier = notifier
        self.planner = planner
        self.pollInterval = pollInterval
        self.logger = logger
        undecodable = UndecodableEvents(source: Self.source, logger: logger)
    }

    func run() async {
        while !Task.isCancelled {
            do {
                let start = try await feed.startCursor(pool: pool)
                try await pool.withConnection { connection in
                    _ = try await connection.execute("""
                        INSERT INTO messaging.event_cursors (source, cursor) VALUES ($1, $2) ON CONFLICT DO NOTHING
                        """, [.text(Self.source), .int64(start)])
                }
                while !Task.isCancelled {
                    // Read the generation first: a commit after it wakes the wait below.
                    let seen = notifier.generation
                    if try await planNextBatch() < Self.batchSize {
                        await notifier.wait(after: seen, timeout: pollInterval)
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("push planning paused", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// Plans the events after the stored cursor; returns how many there were (a full batch
    /// when it ended early at an event that does not decode, so the next one follows at once).
    func planNextBatch() async throws -> Int {
        try await undecodable.skipping { undecodable in try await pool.withTransaction { connection in
            let cursor: Int64 = try await connection.query(
                "SELECT cursor FROM messaging.event_cursors WHERE source = $1 FOR UPDATE", [.text(Self.source)])[0].decode(0)
            let batch = try await feed.outbox.events(after: cursor, types: PushPlanner.realtimeTypes, limit: Self.batchSize,
                                                     on: connection)
            // The cursor moves only with events to plan (a read-only transaction commits without a
            // WAL flush), then past the other types read with them, which are not scanned again.
            guard !batch.events.isEmpty else { return 0 }
            var through = batch.readThrough
            for event in batch.events {
                // (Below the stored cursor, another instance has passed it already.)
                if let undecodable, undecodable > cursor, event.cursor >= undecodable {
                    through = undecodable
                    break
                }
                try await EventSpan.consume(event.type, context: EventTraceContext(event), messageID: event.id,
                                            consumer: Self.source) {
                    try await UndecodableEvents.apply(event) { try await planner.apply(event, source: "realtime", on: connection) }
                }
            }
            _ = try await connection.execute(
                "UPDATE messaging.event_cursors SET cursor = $2, updated_at = now() WHERE source = $1",
                [.text(Self.source), .int64(through)])
            return through == batch.readThrough ? batch.events.count : Self.batchSize
        } }
    }
}
