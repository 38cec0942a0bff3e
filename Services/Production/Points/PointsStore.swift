import Contracts
import Foundation
import Postgres
import Runtime

/// The Unseen's points: append-only entries, one per (account, encounter, reason).
enum PointsStore {
    /// The points of each reason (points.proto's header).
    static func points(for reason: Points.PointsReason) -> Int64? {
        switch reason {
        case .connectionBonus: 10
        case .courage: 5
        case .sessionCompletion: 50
        case .resonanceMultiplier: 100
        default: nil
        }
    }

    static let columns = "id, reason, points, encounter_id, \(UnixMicroseconds.sql("created_at"))"

    /// Grants the award unless it was granted before: the entry, and whether this call granted it.
    static func award(app: String, account: UUID, encounter: String, reason: Points.PointsReason, points: Int64,
                      by service: String, on connection: Connection) async throws -> (entry: Points.PointsEntry, granted: Bool) {
        let inserted = try await connection.query("""
            INSERT INTO production.points_entries (id, app, account_id, encounter_id, reason, points, awarded_by)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (account_id, encounter_id, reason) DO NOTHING RETURNING \(columns)
            """, [.uuid(UUID.random()), .text(app), .uuid(account), .text(encounter), .int16(Int16(reason.rawValue)), .int64(points),
                  .text(service)])
        if let row = inserted.first { return (try entry(row), true) }
        let existing = try await connection.query("""
            SELECT \(columns) FROM production.points_entries WHERE account_id = $1 AND encounter_id = $2 AND reason = $3
            """, [.uuid(account), .text(encounter), .int16(Int16(reason.rawValue))])
        return (try entry(existing[0]), false)
    }

    static func balance(of account: UUID, app: String, on connection: Connection) async throws -> Points.Balance {
        let rows = try await connection.query("""
            SELECT coalesce(sum(points), 0)::int8, count(*) FROM production.points_entries WHERE account_id = $1 AND app = $2
            """, [.uuid(account), .text(app)])
        return Points.Balance(points: try rows[0].decode(0), entries: try rows[0].decode(1))
    }

    static func list(of account: UUID, app: String, after cursor: PageCursor?, limit: Int, on connection: Connection) async throws
        -> [Points.PointsEntry] {
        try await connection.query("""
            SELECT \(columns) FROM production.points_entries
            WHERE account_id = $1 AND app = $2
              AND ($3::int8 IS NULL OR (\(UnixMicroseconds.sql("created_at")), id) < ($3, $4::uuid))
            ORDER BY created_at DESC, id DESC LIMIT $5
            """, [.uuid(account), .text(app), .int64(cursor?.microseconds), .uuid(cursor?.id), .int(limit)]).map(entry)
    }

    static func entry(_ row: PostgresRow) throws -> Points.PointsEntry {
        Points.PointsEntry(id: try row.decode(0, as: UUID.self).lowercased,
                           reason: Points.PointsReason(rawValue: Int32(try row.decode(1, as: Int16.self))),
                           points: try row.decode(2), encounterID: try row.decode(3),
                           createdAt: Timestamp(microseconds: try row.decode(4)))
    }
}
