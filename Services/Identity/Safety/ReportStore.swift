import Foundation
import Postgres
import Runtime

/// Rows of `identity.reports`, the moderation queue of each app.
enum ReportStore {
    private static let columns = """
        id, app, reporter_id, reported_id, reason, details, status, \(UnixMicroseconds.sql("created_at")),
        reviewer_id, \(UnixMicroseconds.sql("reviewed_at")), review_note,
        resolver_id, \(UnixMicroseconds.sql("resolved_at")), resolution_note
        """

    /// Files a report; the reporter's open (pending or reviewed) report about the same account
    /// instead, when there is one. `created` tells which.
    static func file(by reporter: UUID, about reported: UUID, app: String, reason: ReportReasonCode, details: String,
                     on connection: Connection) async throws -> (report: ReportRecord, created: Bool) {
        let inserted = try await connection.query("""
            INSERT INTO identity.reports (id, app, reporter_id, reported_id, reason, details)
            VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (reporter_id, reported_id) WHERE status <> 'resolved' DO NOTHING
            RETURNING \(columns)
            """, [.uuid(UUID.random()), .text(app), .uuid(reporter), .uuid(reported), .text(reason.rawValue), .text(details)])
        if let row = inserted.first { return (try decode(row), true) }
        let open = try await connection.query("""
            SELECT \(columns) FROM identity.reports
            WHERE reporter_id = $1 AND reported_id = $2 AND status <> 'resolved'
            """, [.uuid(reporter), .uuid(reported)])
        guard let row = open.first else {
            // The open report the insert met was resolved or deleted before this read: the
            // transaction runs again (PostgresPool.withTransaction retries 40001).
            throw PostgresError(code: .sqlState(.serializationFailure), context: "a report changed while it was filed")
        }
        return (try decode(row), false)
    }

    /// Up to `limit` reports of `app` after `cursor`, oldest first, optionally in one state
    /// or about one account.
    static func list(app: String, state: ReportState?, reported: UUID?, after cursor: PageCursor?, limit: Int,
                     on connection: Connection) async throws -> [ReportRecord] {
        let rows = try await connection.query("""
            SELECT \(columns) FROM identity.reports
            WHERE app = $1 AND ($2::text IS NULL OR status = $2) AND ($3::uuid IS NULL OR reported_id = $3)
              AND ($4::int8 IS NULL
                   OR (created_at, id) > ('epoch'::timestamptz + $4::int8 * interval '1 microsecond', $5::uuid))
            ORDER BY created_at, id
            LIMIT $6
            """, [.text(app), .text(state?.rawValue), .uuid(reported), .int64(cursor?.microseconds), .uuid(cursor?.id),
                  .int(limit)])
        return try rows.map(decode)
    }

    /// The report `id` of `app`, locked until the transaction ends.
    static func lock(_ id: UUID, app: String, on connection: Connection) async throws -> ReportRecord? {
        let rows = try await connection.query("""
            SELECT \(columns) FROM identity.reports WHERE id = $1 AND app = $2 FOR UPDATE
            """, [.uuid(id), .text(app)])
        return try rows.first.map(decode)
    }

    /// Records `action` by admin `moderator` with `note`, moving the report to `state`.
    static func record(_ action: ModerationAction, on id: UUID, state: ReportState, by moderator: UUID, note: String,
                       on connection: Connection) async throws -> ReportRecord {
        let assignments = switch action {
        case .reviewed: "reviewer_id = $3, reviewed_at = now(), review_note = $4"
        case .resolved: "resolver_id = $3, resolved_at = now(), resolution_note = $4"
        }
        let rows = try await connection.query("""
            UPDATE identity.reports SET status = $2, \(assignments) WHERE id = $1 RETURNING \(columns)
            """, [.uuid(id), .text(state.rawValue), .uuid(moderator), .text(note)])
        return try decode(rows[0])
    }

    private static func decode(_ row: PostgresRow) throws -> ReportRecord {
        let reason: String = try row.decode(4)
        let status: String = try row.decode(6)
        guard let reasonCode = ReportReasonCode(rawValue: reason), let state = ReportState(rawValue: status) else {
            throw PostgresError(code: .decodingFailed, context: "identity.reports reason or status")
        }
        return ReportRecord(id: try row.decode(0), app: try row.decode(1), reporterID: try row.decode(2),
                            reportedID: try row.decode(3), reason: reasonCode, details: try row.decode(5), state: state,
                            createdAt: try row.decode(7), reviewerID: try row.decode(8), reviewedAt: try row.decode(9),
                            reviewNote: try row.decode(10), resolverID: try row.decode(11),
                            resolvedAt: try row.decode(12), resolutionNote: try row.decode(13))
    }
}
