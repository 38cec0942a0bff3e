import Contracts
import Foundation
import Postgres
import Runtime
import Wire

/// The realtime outbox `messaging.realtime`: one row per event and recipient (aggregate id: the
/// recipient's account), written in the transaction of the change, so a user's stream has the
/// outbox's cursor order and resumes from any cursor (Outbox explains why none is skipped).
struct RealtimeFeed: Sendable {
    let outbox: Outbox

    static func outbox() throws -> Outbox { try Outbox(schema: "messaging", stream: "realtime") }

    /// Appends `event` (cursor and time unset: the outbox gives them) to each recipient's stream.
    func publish(_ event: Realtime.RealtimeEvent, type: String, app: String, to recipients: [UUID],
                 on connection: Connection) async throws {
        try await outbox.appendAtCommit(OutboxEvent(type: type, app: app, aggregateID: "", payload: event.serializedBytes()),
                                                forEach: recipients.map { $0.uuidString.lowercased() }, on: connection)
    }

    /// `account`'s events with cursors in (`after`, `through`], oldest first, from at most `limit`
    /// rows, with the last cursor read and whether the rows reached `limit` (more may follow).
    /// Everything at or below a cursor the hub has dispatched, or at or below a settled cursor
    /// (`resumableCursors`), has committed or never will, so such a range is complete. An event
    /// whose payload does not decode is left out, as the hub leaves it out live.
    func events(for account: UUID, after: Int64, through: Int64, limit: Int,
                on connection: Connection) async throws -> (events: [Realtime.RealtimeEvent], readThrough: Int64?, full: Bool) {
        let rows = try await connection.query("""
            SELECT cursor, payload, \(UnixMicroseconds.sql("occurred_at"))
            FROM messaging.realtime
            WHERE aggregate_id = $1 AND cursor > $2 AND cursor <= $3
            ORDER BY cursor
            LIMIT $4
            """, [.text(account.uuidString.lowercased()), .int64(after), .int64(through), .int(limit)])
        var events: [Realtime.RealtimeEvent] = []
        var readThrough: Int64?
        for row in rows {
            let cursor: Int64 = try row.decode(0)
            readThrough = cursor
            do {
                events.append(try Self.event(cursor: cursor, payload: try row.decode(1), occurredAt: try row.decode(2)))
            } catch is WireDecodingError {
                continue
            }
        }
        return (events, readThrough, rows.count == limit)
    }

    /// The cursors a stream may resume after: from the highest one pruned (older events are
    /// gone) to below the first cursor of transactions not yet begun (`pg_snapshot_xmax`: no event
    /// has a cursor at or above it yet, so such a cursor was never handed out); and the last
    /// settled cursor (below the outbox's horizon, `pg_snapshot_xmin`: every event at or below it
    /// has committed or never will), which bounds a complete replay.
    func resumableCursors(on connection: Connection) async throws -> (resumable: Range<Int64>, settled: Int64) {
        let row = try await connection.query("""
            SELECT pruned_through, pg_snapshot_xmax(pg_current_snapshot())::text::bigint << \(Outbox.rankBits),
                   (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << \(Outbox.rankBits)) - 1
            FROM messaging.realtime_retention WHERE id = 1
            """)[0]
        return (try row.decode(0)..<row.decode(1), try row.decode(2))
    }

    /// The last settled cursor, once it reaches `horizon` or `patience` has passed (polled every
    /// few milliseconds): every transaction begun before a resume (below its `pg_snapshot_xmax`)
    /// has ended by then, unless one stays open longer, e.g. another database's on the cluster.
    func settled(reaching horizon: Int64, within patience: Duration, pool: PostgresPool) async throws -> Int64 {
        let deadline = ContinuousClock.now + patience
        while true {
            let settled = try await pool.withConnection { try await resumableCursors(on: $0).settled }
            if settled >= horizon || ContinuousClock.now >= deadline { return settled }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Deletes events older than `retention`, at most `batch` at a time, recording the highest
    /// cursor deleted; instances take turns on the retention row. Returns how many went.
    func prune(olderThan retention: Duration, batch: Int = 10_000, pool: PostgresPool) async throws -> Int {
        let milliseconds = retention.components.seconds * 1000 + retention.components.attoseconds / 1_000_000_000_000_000
        var total = 0
        while true {
            let deleted: Int = try await pool.withTransaction { connection in
                _ = try await connection.query("SELECT 1 FROM messaging.realtime_retention WHERE id = 1 FOR UPDATE")
                let rows = try await connection.query("""
                    WITH gone AS (
                        DELETE FROM messaging.realtime WHERE cursor IN (
                            SELECT cursor FROM messaging.realtime
                            WHERE occurred_at < now() - $1::int8 * interval '1 millisecond'
                            ORDER BY occurred_at LIMIT $2)
                        RETURNING cursor),
                    moved AS (
                        UPDATE messaging.realtime_retention
                        SET pruned_through = greatest(pruned_through, (SELECT max(cursor) FROM gone))
                        WHERE id = 1 AND EXISTS (SELECT 1 FROM gone))
                    SELECT count(*)::int8 FROM gone
                    """, [.int64(milliseconds), .int(batch)])
                return Int(try rows[0].decode(0, as: Int64.self))
            }
            total += deleted
            if deleted < batch { return total }
        }
    }

    /// Prunes every `interval` until cancelled.
    func pruneRegularly(every interval: Duration, olderThan retention: Duration, pool: PostgresPool) async {
        while !Task.isCancelled {
            _ = try? await prune(olderThan: retention, pool: pool)
            try? await Task.sleep(for: interval)
        }
    }

    /// An outbox row as the subscriber receives it.
    static func event(cursor: Int64, payload: [UInt8], occurredAt: Int64) throws -> Realtime.RealtimeEvent {
        var event = try Realtime.RealtimeEvent(serializedBytes: payload)
        event.cursor = cursor
        event.occurredAt = Timestamp(microseconds: occurredAt)
        return event
    }

    /// Where a new hub starts: every event below it has committed or never will.
    func startCursor(pool: PostgresPool) async throws -> Int64 {
        try await pool.withConnection { connection in
            try await outbox.cursor(before: Int64(Date().timeIntervalSince1970 * 1_000_000) + 60_000_000, on: connection)
        }
    }

    /// Feeds `hub` every event after its position, live, until cancelled; a broken read is
    /// retried after a pause from where the hub stands.
    func follow(into hub: RealtimeHub, stream: EventStreamService) async {
        while !Task.isCancelled {
            do {
                try await stream.follow(Events.WatchEventsRequest(afterCursor: hub.position)) { event in
                    hub.dispatch(cursor: event.cursor, recipient: UUID(uuidString: event.aggregateID)) {
                        try Self.event(cursor: event.cursor, payload: event.payload,
                                       occurredAt: event.occurredAt?.microseconds ?? 0)
                    }
                }
            } catch {
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}
