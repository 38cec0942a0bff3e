import Foundation
import Postgres
import Runtime

/// The durable push queue `messaging.push_jobs`. Jobs are added in the transaction of the event
/// that causes them; instances lease them with FOR UPDATE SKIP LOCKED (a lease moves
/// `available_at` forward, so a crashed instance's jobs come back once it passes), so each job
/// is worked by one instance at a time.
enum PushQueue {
    /// The queue's name in its spans (`messaging.destination.name`).
    static let destination = "push"

    /// Adds `job` unless its source already planned one for the account; inside a sampled span
    /// with the trace context of a producer span (`EventSpan`), which the worker continues.
    static func add(_ job: PushJob, on connection: Connection) async throws {
        let trace = EventSpan.produce(destination, count: 1)
        _ = try await connection.execute("""
            INSERT INTO messaging.push_jobs (source, account_id, app, category, reference, payload, collapse_id, priority,
                                             expires_at, push_type, traceparent, tracestate)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, to_timestamp($9::int8), $10, $11::text, $12::text)
            ON CONFLICT (source, account_id) DO NOTHING
            """, [.text(job.source), .uuid(job.account), .text(job.app), .int16(job.category.rawValue), .text(job.reference),
                  .bytea(job.payload), .text(job.collapseID), .int16(Int16(job.priority)), .int64(job.expiresAt),
                  .text(job.pushType), trace.map { .text($0.traceParent) } ?? .null,
                  trace?.traceState.map { .text($0) } ?? .null])
    }

    /// Leases up to `limit` due jobs for `lease`, oldest first.
    static func lease(limit: Int, for lease: Duration, pool: PostgresPool) async throws -> [PushJob] {
        try await pool.withTransaction { connection in
            let rows = try await connection.query("""
                WITH due AS (
                    SELECT id FROM messaging.push_jobs
                    WHERE done_at IS NULL AND available_at <= now()
                    ORDER BY available_at, id
                    LIMIT $1
                    FOR UPDATE SKIP LOCKED)
                UPDATE messaging.push_jobs j
                SET available_at = now() + $2::int8 * interval '1 millisecond', leases = leases + 1
                FROM due WHERE j.id = due.id
                RETURNING j.id, j.source, j.account_id, j.app, j.category, j.reference, j.payload, j.collapse_id, j.priority,
                          extract(epoch FROM j.expires_at)::int8, j.leases, j.push_type, j.traceparent, j.tracestate
                """, [.int(limit), .int64(milliseconds(lease))])
            return try rows.compactMap { row in
                guard let category = NotificationCategory(rawValue: try row.decode(4)) else { return nil }
                return PushJob(id: try row.decode(0), source: try row.decode(1), account: try row.decode(2), app: try row.decode(3),
                               category: category, reference: try row.decode(5), payload: try row.decode(6),
                               collapseID: try row.decode(7), priority: Int(try row.decode(8, as: Int16.self)),
                               expiresAt: try row.decode(9), leases: Int(try row.decode(10, as: Int32.self)),
                               pushType: try row.decode(11),
                               trace: try row.decode(12, as: String?.self).map {
                                   EventTraceContext(traceParent: $0, traceState: try row.decode(13, as: String?.self))
                               })
            }
        }
    }

    /// The job is finished (sent, refused, or given up on).
    static func finish(_ id: Int64, pool: PostgresPool) async throws {
        try await pool.withConnection { connection in
            _ = try await connection.execute("UPDATE messaging.push_jobs SET done_at = now() WHERE id = $1", [.int64(id)])
        }
    }

    /// The job could not be worked now (identity unreachable): try again after `delay`.
    static func postpone(_ id: Int64, by delay: Duration, pool: PostgresPool) async throws {
        try await pool.withConnection { connection in
            _ = try await connection.execute("""
                UPDATE messaging.push_jobs SET available_at = now() + $2::int8 * interval '1 millisecond' WHERE id = $1
                """, [.int64(id), .int64(milliseconds(delay))])
        }
    }

    /// Deletes finished jobs older than `age` (their deliveries stay in the log) and log rows
    /// older than `logAge`.
    static func prune(olderThan age: Duration, logOlderThan logAge: Duration, pool: PostgresPool) async throws {
        try await pool.withConnection { connection in
            _ = try await connection.execute("""
                DELETE FROM messaging.push_jobs WHERE done_at < now() - $1::int8 * interval '1 millisecond'
                """, [.int64(milliseconds(age))])
            _ = try await connection.execute("""
                DELETE FROM messaging.push_deliveries WHERE sent_at < now() - $1::int8 * interval '1 millisecond'
                """, [.int64(milliseconds(logAge))])
        }
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
