import Contracts
import Foundation
import Postgres
import Runtime

/// Rows of `discovery.matches`, one per pair ever matched (the pair is stored ordered, so the
/// unique constraint holds whichever side liked last), and the MatchCreated / MatchEnded events
/// written with each change.
struct MatchStore: Sendable {
    let outbox: Outbox

    /// One match as its member sees it.
    struct Entry: Sendable {
        var id: UUID
        var other: UUID
        var publicName: String
        var photoIDs: [String]
        var createdAt: Int64
        var superLike: Bool

        var message: Discovery.Match {
            var match = Discovery.Match()
            match.matchID = id.uuidString.lowercased()
            match.accountID = other.uuidString.lowercased()
            match.publicName = publicName
            match.photoIDs = photoIDs
            match.matchedAt = Timestamp(microseconds: createdAt)
            match.superLike = superLike
            return match
        }
    }

    private static let entryColumns = """
        m.id, CASE WHEN m.account_low = $1 THEN m.account_high ELSE m.account_low END,
        coalesce(p.public_name, ''), coalesce(p.photo_ids, '{}'), \(UnixMicroseconds.sql("m.created_at")), m.super_like
        """
    private static let otherJoin = """
        LEFT JOIN discovery.profiles p
          ON p.account_id = CASE WHEN m.account_low = $1 THEN m.account_high ELSE m.account_low END
        """

    private static func entry(_ row: PostgresRow) throws -> Entry {
        Entry(id: try row.decode(0), other: try row.decode(1), publicName: try row.decode(2), photoIDs: try row.decode(3),
              createdAt: try row.decode(4), superLike: try row.decode(5))
    }

    /// Makes the pair's match unless one exists (caller holds the pair's lock), with its
    /// MatchCreated event; returns the match as `completer` sees it and whether this call made it.
    func create(completer: UUID, other: UUID, app: String, superLike: Bool,
                on connection: Connection) async throws -> (entry: Entry, created: Bool) {
        let inserted = try await connection.query("""
            INSERT INTO discovery.matches (id, app, account_low, account_high, super_like)
            VALUES ($2, $3, LEAST($1::uuid, $4::uuid), GREATEST($1::uuid, $4::uuid), $5)
            ON CONFLICT (account_low, account_high) DO NOTHING
            RETURNING id
            """, [.uuid(completer), .uuid(UUID.random()), .text(app), .uuid(other), .bool(superLike)])
        guard let entry = try await find(between: completer, and: other, on: connection) else {
            throw PostgresError(code: .protocolViolation, context: "match missing after insert")
        }
        guard !inserted.isEmpty else { return (entry, false) }
        var event = Discovery.MatchCreated()
        event.matchID = entry.id.uuidString.lowercased()
        event.app = app
        event.accountIDs = [completer.uuidString.lowercased(), other.uuidString.lowercased()]
        event.matchedAt = Timestamp(microseconds: entry.createdAt)
        event.superLike = superLike
        try await outbox.appendAtCommit(OutboxEvent(type: "MatchCreated", app: app, aggregateID: event.matchID,
                                                    payload: event.serializedBytes()), on: connection)
        return (entry, true)
    }

    /// The pair's current (not ended) match as `viewer` sees it.
    func find(between viewer: UUID, and other: UUID, on connection: Connection) async throws -> Entry? {
        let rows = try await connection.query("""
            SELECT \(Self.entryColumns)
            FROM discovery.matches m \(Self.otherJoin)
            WHERE m.account_low = LEAST($1::uuid, $2::uuid) AND m.account_high = GREATEST($1::uuid, $2::uuid)
              AND m.ended_at IS NULL
            """, [.uuid(viewer), .uuid(other)])
        return try rows.first.map(Self.entry)
    }

    /// Up to `limit` of `viewer`'s current matches after `cursor`, newest first.
    func list(of viewer: UUID, after cursor: PageCursor?, limit: Int, on connection: Connection) async throws -> [Entry] {
        let rows = try await connection.query("""
            SELECT \(Self.entryColumns)
            FROM discovery.matches m \(Self.otherJoin)
            WHERE (m.account_low = $1 OR m.account_high = $1) AND m.ended_at IS NULL
              AND ($2::int8 IS NULL OR (\(UnixMicroseconds.sql("m.created_at")), m.id) < ($2::int8, $3::uuid))
            ORDER BY m.created_at DESC, m.id DESC
            LIMIT $4
            """, [.uuid(viewer), .int64(cursor?.microseconds), .uuid(cursor?.id), .int(limit)])
        return try rows.map(Self.entry)
    }

    /// Ends match `id` if `caller` is in it: nil when it is not theirs (or does not exist),
    /// false when it had already ended.
    func unmatch(_ id: UUID, by caller: UUID, app: String, on connection: Connection) async throws -> Bool? {
        let rows = try await connection.query("""
            SELECT account_low, account_high, ended_at IS NULL FROM discovery.matches
            WHERE id = $1 AND app = $2 AND (account_low = $3 OR account_high = $3)
            FOR UPDATE
            """, [.uuid(id), .text(app), .uuid(caller)])
        guard let row = rows.first else { return nil }
        guard try row.decode(2, as: Bool.self) else { return false }
        try await end(id, accounts: [try row.decode(0), try row.decode(1)], by: caller, reason: .unmatched, app: app,
                      on: connection)
        return true
    }

    /// Ends the pair's current match, if any (a block).
    func end(between a: UUID, and b: UUID, by caller: UUID?, reason: Discovery.MatchEndReason, app: String,
             on connection: Connection) async throws {
        let rows = try await connection.query("""
            SELECT id FROM discovery.matches
            WHERE account_low = LEAST($1::uuid, $2::uuid) AND account_high = GREATEST($1::uuid, $2::uuid)
              AND ended_at IS NULL
            FOR UPDATE
            """, [.uuid(a), .uuid(b)])
        guard let row = rows.first else { return }
        try await end(try row.decode(0), accounts: [a, b], by: caller, reason: reason, app: app, on: connection)
    }

    /// Ends every current match of `account` (a deletion).
    func endAll(of account: UUID, app: String, on connection: Connection) async throws {
        let rows = try await connection.query("""
            SELECT id, account_low, account_high FROM discovery.matches
            WHERE (account_low = $1 OR account_high = $1) AND ended_at IS NULL
            FOR UPDATE
            """, [.uuid(account)])
        for row in rows {
            try await end(try row.decode(0), accounts: [try row.decode(1), try row.decode(2)], by: nil, reason: .deleted,
                          app: app, on: connection)
        }
    }

    private func end(_ id: UUID, accounts: [UUID], by caller: UUID?, reason: Discovery.MatchEndReason, app: String,
                     on connection: Connection) async throws {
        let rows = try await connection.query("""
            UPDATE discovery.matches SET ended_at = now(), ended_by = $2, end_reason = $3
            WHERE id = $1 RETURNING \(UnixMicroseconds.sql("ended_at"))
            """, [.uuid(id), .uuid(caller), .int16(Int16(reason.rawValue))])
        var event = Discovery.MatchEnded()
        event.matchID = id.uuidString.lowercased()
        event.app = app
        event.accountIDs = accounts.map { $0.uuidString.lowercased() }
        event.endedBy = caller?.uuidString.lowercased() ?? ""
        event.reason = reason
        event.endedAt = Timestamp(microseconds: try rows[0].decode(0))
        try await outbox.appendAtCommit(OutboxEvent(type: "MatchEnded", app: app, aggregateID: event.matchID,
                                                    payload: event.serializedBytes()), on: connection)
    }
}
