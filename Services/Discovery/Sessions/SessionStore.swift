import Contracts
import Foundation
import Postgres
import Runtime

/// Rows of `discovery.group_sessions` and their participants and likes. Every change to a
/// session happens under its row lock (`lock`), which is what makes the quorum a hard limit and
/// the match single.
struct SessionStore: Sendable {
    let outbox: Outbox
    let inviteLinkBase: String

    enum Status: Int16 {
        case open = 1, matched = 2, closed = 3
    }

    struct Locked: Sendable {
        var id: UUID
        var status: Status
        var quorum: Int32
        var categoryID: String
        var creatorID: UUID
        var matchedOptionID: String?
    }

    static let codeAlphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")

    static func makeCode() -> String {
        String((0..<6).map { _ in codeAlphabet.randomElement()! })  // the alphabet is not empty
    }

    /// Locks session `id` of `app` for the rest of the transaction.
    func lock(_ id: UUID, app: String, on connection: Connection) async throws -> Locked? {
        try await Self.locked(connection.query("""
            SELECT id, status, quorum, category_id, creator_id, matched_option_id FROM discovery.group_sessions
            WHERE id = $1 AND app = $2 FOR UPDATE
            """, [.uuid(id), .text(app)]))
    }

    /// Locks session `id` for a participant; SESSION_NOT_FOUND for anyone else.
    func lock(_ id: UUID, participant account: UUID, app: String, on connection: Connection) async throws -> Locked {
        guard let session = try await lock(id, app: app, on: connection),
              try await isParticipant(account, in: id, on: connection) else { throw SessionError.sessionNotFound }
        return session
    }

    /// Locks the session whose invite code is `code`.
    func lock(code: String, app: String, on connection: Connection) async throws -> Locked? {
        try await Self.locked(connection.query("""
            SELECT id, status, quorum, category_id, creator_id, matched_option_id FROM discovery.group_sessions
            WHERE invite_code = $1 AND app = $2 FOR UPDATE
            """, [.text(code), .text(app)]))
    }

    private static func locked(_ rows: PostgresRows) throws -> Locked? {
        guard let row = rows.first else { return nil }
        return Locked(id: try row.decode(0), status: Status(rawValue: try row.decode(1)) ?? .closed,
                      quorum: Int32(try row.decode(2, as: Int16.self)), categoryID: try row.decode(3),
                      creatorID: try row.decode(4), matchedOptionID: try row.decode(5))
    }

    func isParticipant(_ account: UUID, in session: UUID, on connection: Connection) async throws -> Bool {
        try await connection.query("""
            SELECT EXISTS (SELECT 1 FROM discovery.session_participants WHERE session_id = $1 AND account_id = $2)
            """, [.uuid(session), .uuid(account)])[0].decode(0)
    }

    func participantIDs(of session: UUID, on connection: Connection) async throws -> [String] {
        try await connection.query("""
            SELECT account_id::text FROM discovery.session_participants WHERE session_id = $1 ORDER BY joined_at, account_id
            """, [.uuid(session)]).map { try $0.decode(0) }
    }

    /// Creates an open session with `creator` as its first participant; a fresh code on the
    /// rare clash with an existing one.
    func create(app: String, category: String, quorum: Int32, creator: UUID, on connection: Connection) async throws -> UUID {
        let id = UUID.random()
        for _ in 0..<5 {
            let inserted = try await connection.query("""
                INSERT INTO discovery.group_sessions (id, app, category_id, quorum, invite_code, creator_id)
                VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (app, invite_code) DO NOTHING RETURNING id
                """, [.uuid(id), .text(app), .text(category), .int16(Int16(quorum)), .text(Self.makeCode()), .uuid(creator)])
            if !inserted.isEmpty {
                _ = try await connection.execute("""
                    INSERT INTO discovery.session_participants (session_id, account_id) VALUES ($1, $2)
                    """, [.uuid(id), .uuid(creator)])
                return id
            }
        }
        throw PostgresError(code: .sqlState(.uniqueViolation), context: "no free invite code")
    }

    func participantCount(of session: UUID, on connection: Connection) async throws -> Int {
        try await connection.query("SELECT count(*) FROM discovery.session_participants WHERE session_id = $1",
                                   [.uuid(session)])[0].decode(0)
    }

    func join(_ session: UUID, account: UUID, app: String, on connection: Connection) async throws {
        let rows = try await connection.query("""
            WITH joined AS (
                INSERT INTO discovery.session_participants (session_id, account_id) VALUES ($1, $2) RETURNING joined_at
            )
            UPDATE discovery.group_sessions SET updated_at = (SELECT joined_at FROM joined) WHERE id = $1
            RETURNING \(UnixMicroseconds.sql("updated_at"))
            """, [.uuid(session), .uuid(account)])
        var event = Sessions.SessionJoined()
        event.sessionID = session.uuidString.lowercased()
        event.app = app
        event.accountID = account.uuidString.lowercased()
        event.joinedAt = Timestamp(microseconds: try rows[0].decode(0))
        try await outbox.appendAtCommit(OutboxEvent(type: "SessionJoined", app: app, aggregateID: event.sessionID,
                                                    payload: event.serializedBytes()), on: connection)
    }

    /// Records the like (idempotently) and returns how many participants like that option now.
    func like(_ option: String, in session: UUID, by account: UUID, on connection: Connection) async throws -> Int {
        _ = try await connection.execute("""
            INSERT INTO discovery.session_likes (session_id, option_id, account_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING
            """, [.uuid(session), .text(option), .uuid(account)])
        return try await connection.query("""
            SELECT count(*) FROM discovery.session_likes WHERE session_id = $1 AND option_id = $2
            """, [.uuid(session), .text(option)])[0].decode(0)
    }

    func markMatched(_ session: UUID, option: Sessions.SessionOption, app: String, on connection: Connection) async throws {
        let rows = try await connection.query("""
            UPDATE discovery.group_sessions SET status = 2, matched_option_id = $2, ended_at = now(), updated_at = now()
            WHERE id = $1 RETURNING \(UnixMicroseconds.sql("ended_at"))
            """, [.uuid(session), .text(option.optionID)])
        var event = Sessions.SessionMatched()
        event.sessionID = session.uuidString.lowercased()
        event.app = app
        event.optionID = option.optionID
        event.optionLabel = option.label
        event.participantIDs = try await participantIDs(of: session, on: connection)
        event.matchedAt = Timestamp(microseconds: try rows[0].decode(0))
        try await outbox.appendAtCommit(OutboxEvent(type: "SessionMatched", app: app, aggregateID: event.sessionID,
                                                    payload: event.serializedBytes()), on: connection)
    }

    func markClosed(_ session: UUID, app: String, on connection: Connection) async throws {
        let rows = try await connection.query("""
            UPDATE discovery.group_sessions SET status = 3, ended_at = now(), updated_at = now()
            WHERE id = $1 RETURNING \(UnixMicroseconds.sql("ended_at"))
            """, [.uuid(session)])
        var event = Sessions.SessionClosed()
        event.sessionID = session.uuidString.lowercased()
        event.app = app
        event.participantIDs = try await participantIDs(of: session, on: connection)
        event.closedAt = Timestamp(microseconds: try rows[0].decode(0))
        try await outbox.appendAtCommit(OutboxEvent(type: "SessionClosed", app: app, aggregateID: event.sessionID,
                                                    payload: event.serializedBytes()), on: connection)
    }

    func option(_ id: String, in category: String, on connection: Connection) async throws -> Sessions.SessionOption? {
        let rows = try await connection.query("""
            SELECT id, label, image_url FROM discovery.options WHERE id = $1 AND category_id = $2
            """, [.text(id), .text(category)])
        return try rows.first.map { Sessions.SessionOption(optionID: try $0.decode(0), label: try $0.decode(1), imageURL: try $0.decode(2)) }
    }

    /// The category's options in `account`'s own order for `session` (a hash of the three ids:
    /// shuffled, yet the same on every call).
    func deck(_ session: UUID, category: String, for account: UUID, on connection: Connection) async throws -> Sessions.Deck {
        let options = try await connection.query("""
            SELECT id, label, image_url FROM discovery.options WHERE category_id = $1
            ORDER BY md5($2::text || $3::text || id), id
            """, [.text(category), .text(session.uuidString), .text(account.uuidString)])
        let liked = try await connection.query("""
            SELECT option_id FROM discovery.session_likes WHERE session_id = $1 AND account_id = $2 ORDER BY option_id
            """, [.uuid(session), .uuid(account)])
        var deck = Sessions.Deck()
        deck.sessionID = session.uuidString.lowercased()
        deck.options = try options.map { Sessions.SessionOption(optionID: try $0.decode(0), label: try $0.decode(1), imageURL: try $0.decode(2)) }
        deck.likedOptionIDs = try liked.map { try $0.decode(0) }
        return deck
    }

    func categories(on connection: Connection) async throws -> [Sessions.Category] {
        try await connection.query("""
            SELECT c.id, c.name, c.icon, (SELECT count(*) FROM discovery.options o WHERE o.category_id = c.id)::int4
            FROM discovery.categories c ORDER BY c.position, c.id
            """).map { Sessions.Category(categoryID: try $0.decode(0), name: try $0.decode(1), icon: try $0.decode(2),
                                         optionCount: try $0.decode(3)) }
    }

    func categoryExists(_ id: String, on connection: Connection) async throws -> Bool {
        try await connection.query("SELECT EXISTS (SELECT 1 FROM discovery.categories WHERE id = $1)", [.text(id)])[0].decode(0)
    }

    /// The session as its participants see it; nil when there is none, or none of `app` when
    /// an app is given.
    func load(_ id: UUID, app: String? = nil, on connection: Connection) async throws -> Sessions.GroupSession? {
        let rows = try await connection.query("""
            SELECT s.id, s.quorum, s.status, s.invite_code, s.creator_id::text, \(UnixMicroseconds.sql("s.created_at")),
                   \(UnixMicroseconds.sql("s.updated_at")), \(UnixMicroseconds.sql("s.ended_at")),
                   c.id, c.name, c.icon, (SELECT count(*) FROM discovery.options o WHERE o.category_id = c.id)::int4,
                   o.id, o.label, o.image_url
            FROM discovery.group_sessions s JOIN discovery.categories c ON c.id = s.category_id
            LEFT JOIN discovery.options o ON o.id = s.matched_option_id
            WHERE s.id = $1 AND ($2::text IS NULL OR s.app = $2)
            """, [.uuid(id), .text(app)])
        guard let row = rows.first else { return nil }
        var session = Sessions.GroupSession()
        session.sessionID = try row.decode(0, as: UUID.self).uuidString.lowercased()
        session.quorum = Int32(try row.decode(1, as: Int16.self))
        session.status = Sessions.SessionStatus(rawValue: Int32(try row.decode(2, as: Int16.self)))
        session.inviteCode = try row.decode(3)
        session.inviteLink = inviteLinkBase + session.inviteCode
        session.creatorID = try row.decode(4)
        session.createdAt = Timestamp(microseconds: try row.decode(5))
        session.updatedAt = Timestamp(microseconds: try row.decode(6))
        session.endedAt = try row.decode(7, as: Int64?.self).map { Timestamp(microseconds: $0) }
        session.category = Sessions.Category(categoryID: try row.decode(8), name: try row.decode(9), icon: try row.decode(10),
                                             optionCount: try row.decode(11))
        if let optionID = try row.decode(12, as: String?.self) {
            session.matchedOption = Sessions.SessionOption(optionID: optionID, label: try row.decode(13), imageURL: try row.decode(14))
        }
        session.participants = try await connection.query("""
            SELECT account_id::text, \(UnixMicroseconds.sql("joined_at")) FROM discovery.session_participants
            WHERE session_id = $1 ORDER BY joined_at, account_id
            """, [.uuid(id)]).map { Sessions.Participant(accountID: try $0.decode(0), joinedAt: Timestamp(microseconds: try $0.decode(1))) }
        return session
    }

    /// Ids of `account`'s sessions with one of `statuses`, most recently updated first, after `cursor`.
    func list(of account: UUID, app: String, statuses: [Int16], after cursor: PageCursor?, limit: Int,
              on connection: Connection) async throws -> [(id: UUID, updatedAt: Int64)] {
        try await connection.query("""
            SELECT s.id, \(UnixMicroseconds.sql("s.updated_at"))
            FROM discovery.session_participants p JOIN discovery.group_sessions s ON s.id = p.session_id
            WHERE p.account_id = $1 AND s.app = $2 AND s.status = ANY($3::int4[])
              AND ($4::int8 IS NULL OR (\(UnixMicroseconds.sql("s.updated_at")), s.id) < ($4::int8, $5::uuid))
            ORDER BY s.updated_at DESC, s.id DESC
            LIMIT $6
            """, [.uuid(account), .text(app), .int32Array(statuses.map(Int32.init)), .int64(cursor?.microseconds),
                  .uuid(cursor?.id), .int(limit)]).map { (try $0.decode(0), try $0.decode(1)) }
    }
}
