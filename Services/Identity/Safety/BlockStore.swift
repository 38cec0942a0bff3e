import Foundation
import Postgres
import Runtime

/// Rows of `identity.blocks`: one per (blocker, blocked). A block hides the pair from each
/// other both ways; `isBlocked` is the check every read path uses.
enum BlockStore {
    /// True when `a` blocked `b` or `b` blocked `a`.
    static func isBlocked(_ a: UUID, _ b: UUID, on connection: Connection) async throws -> Bool {
        let rows = try await connection.query("""
            SELECT EXISTS (SELECT 1 FROM identity.blocks
                           WHERE (blocker_id = $1 AND blocked_id = $2) OR (blocker_id = $2 AND blocked_id = $1))
            """, [.uuid(a), .uuid(b)])
        return try rows[0].decode(0)
    }

    /// Adds the block unless it exists; returns when it was made (microseconds) and whether
    /// this call made it. Concurrent identical calls make one row: the later insert waits for
    /// the earlier and then finds it. Call within `PostgresPool.withTransaction`.
    static func block(_ blocked: UUID, by blocker: UUID, app: String,
                      on connection: Connection) async throws -> (blockedAt: Int64, created: Bool) {
        let inserted = try await connection.query("""
            INSERT INTO identity.blocks (blocker_id, blocked_id, app) VALUES ($1, $2, $3)
            ON CONFLICT (blocker_id, blocked_id) DO NOTHING
            RETURNING \(UnixMicroseconds.sql("created_at"))
            """, [.uuid(blocker), .uuid(blocked), .text(app)])
        if let row = inserted.first { return (try row.decode(0), true) }
        let existing = try await connection.query("""
            SELECT \(UnixMicroseconds.sql("created_at")) FROM identity.blocks WHERE blocker_id = $1 AND blocked_id = $2
            """, [.uuid(blocker), .uuid(blocked)])
        guard let row = existing.first else {
            // The block the insert met was removed (an unblock, a deleted account) before this
            // read: the transaction runs again (PostgresPool.withTransaction retries 40001).
            throw PostgresError(code: .sqlState(.serializationFailure), context: "a block changed while it was added")
        }
        return (try row.decode(0), false)
    }

    /// Removes the block; the time it was removed (microseconds), nil when there was none.
    static func unblock(_ blocked: UUID, by blocker: UUID, on connection: Connection) async throws -> Int64? {
        let rows = try await connection.query("""
            DELETE FROM identity.blocks WHERE blocker_id = $1 AND blocked_id = $2
            RETURNING \(UnixMicroseconds.sql("now()"))
            """, [.uuid(blocker), .uuid(blocked)])
        return try rows.first?.decode(0, as: Int64.self)
    }

    /// One block as listed: who, their username, when (microseconds).
    struct Entry: Sendable {
        var accountID: UUID
        var username: String
        var blockedAt: Int64
    }

    /// Up to `limit` of `blocker`'s blocks after `cursor`, newest first.
    static func list(by blocker: UUID, after cursor: PageCursor?, limit: Int,
                     on connection: Connection) async throws -> [Entry] {
        let rows = try await connection.query("""
            SELECT b.blocked_id, a.username, \(UnixMicroseconds.sql("b.created_at"))
            FROM identity.blocks b JOIN identity.accounts a ON a.id = b.blocked_id
            WHERE b.blocker_id = $1
              AND ($2::int8 IS NULL
                   OR (b.created_at, b.blocked_id) < ('epoch'::timestamptz + $2::int8 * interval '1 microsecond', $3::uuid))
            ORDER BY b.created_at DESC, b.blocked_id DESC
            LIMIT $4
            """, [.uuid(blocker), .int64(cursor?.microseconds), .uuid(cursor?.id), .int(limit)])
        return try rows.map { row in
            Entry(accountID: try row.decode(0), username: try row.decode(1), blockedAt: try row.decode(2))
        }
    }
}
