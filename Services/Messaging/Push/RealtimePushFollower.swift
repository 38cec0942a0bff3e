import Contracts
import Logging
import Postgres
import Runtime

/// Follows messaging's own realtime outbox in-process for the planner: each event is planned
/// and the cursor (`messaging.event_cursors`, source `push-realtime`) advanced in one
/// transaction under the cursor's row lock, so with several instances each event is planned
/// once. A first start begins at the current end of the outbox, not at its history.
struct RealtimePushFollower: Sendable {
    static let source = "push-realtime"

    let pool: PostgresPool
    let feed: RealtimeFeed
    let stream: EventStreamService
    let planner: PushPlanner
    let logger: Logger

    func run() async {
        while !Task.isCancelled {
            do {
                let start = try await feed.startCursor(pool: pool)
                let after: Int64 = try await pool.withConnection { connection in
                    _ = try await connection.execute("""
                        INSERT INTO messaging.event_cursors (source, cursor) VALUES ($1, $2) ON CONFLICT DO NOTHING
                        """, [.text(Self.source), .int64(start)])
                    return try await connection.query("SELECT cursor FROM messaging.event_cursors WHERE source = $1",
                                                      [.text(Self.source)])[0].decode(0)
                }
                try await stream.follow(Events.WatchEventsRequest(afterCursor: after, types: PushPlanner.realtimeTypes)) { event in
                    try await applyOnce(event)
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("push planning paused", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    private func applyOnce(_ event: Events.Event) async throws {
        try await pool.withTransaction { connection in
            let current: Int64 = try await connection.query(
                "SELECT cursor FROM messaging.event_cursors WHERE source = $1 FOR UPDATE", [.text(Self.source)])[0].decode(0)
            guard event.cursor > current else { return }
            try await planner.apply(event, source: "realtime", on: connection)
            _ = try await connection.execute(
                "UPDATE messaging.event_cursors SET cursor = $2, updated_at = now() WHERE source = $1",
                [.text(Self.source), .int64(event.cursor)])
        }
    }
}
