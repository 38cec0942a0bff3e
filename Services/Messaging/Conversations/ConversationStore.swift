import Contracts
import Foundation
import Postgres
import Runtime

/// Rows of `messaging.conversations` (one per match, its id the match's) and
/// `messaging.members` (each side's read marker), as one member sees them.
enum ConversationStore {
    /// What a call needs to know of a conversation before touching it.
    struct Access: Sendable {
        var app: String
        var other: UUID
        var closed: Bool
        var readThrough: Int64
        var lastSequence: Int64
    }

    /// `account`'s access to conversation `id`: CONVERSATION_NOT_FOUND when no conversation of
    /// `app` has the id, NOT_A_PARTICIPANT when `account` is not one of its two members. `lock`
    /// takes the conversation's row lock (senders and readers of one conversation queue).
    static func access(_ id: UUID, account: UUID, app: String, lock: Bool,
                       on connection: Connection) async throws -> Access {
        let statement = accessStatement(id, account: account, lock: lock)
        return try access(from: try await connection.query(statement.sql, statement.params), app: app)
    }

    /// The query `access` runs.
    private static func accessStatement(_ id: UUID, account: UUID, lock: Bool) -> PostgresStatement {
        PostgresStatement("""
            SELECT c.app, c.closed_at IS NOT NULL, c.last_sequence, m.other_id, m.read_through
            FROM messaging.conversations c
            LEFT JOIN messaging.members m ON m.conversation_id = c.id AND m.account_id = $2
            WHERE c.id = $1
            \(lock ? "FOR UPDATE OF c" : "")
            """, [.uuid(id), .uuid(account)])
    }

    /// The access in `rows`, the answer to `accessStatement`.
    private static func access(from rows: PostgresRows, app: String) throws -> Access {
        guard let row = rows.first, try row.decode(0, as: String.self) == app else { throw MessagingError.conversationNotFound }
        guard let other = try row.decode(3, as: UUID?.self) else { throw MessagingError.notAParticipant }
        return Access(app: app, other: other, closed: try row.decode(1), readThrough: try row.decode(4),
                      lastSequence: try row.decode(2))
    }

    private static let viewColumns = """
        c.id, m.other_id, \(UnixMicroseconds.sql("c.matched_at")), c.closed_at IS NOT NULL, m.read_through,
        o.read_through, \(UnixMicroseconds.sql("c.last_activity_at")),
        (SELECT count(*) FROM messaging.messages x
          WHERE x.conversation_id = c.id AND x.sender_id <> m.account_id AND x.sequence > m.read_through)::int4,
        \(MessageStore.columns("lm")),
        CASE WHEN c.last_sequence = 0 THEN coalesce(i.starters, '{}') ELSE '{}' END
        """
    private static let viewJoins = """
        FROM messaging.members m
        JOIN messaging.conversations c ON c.id = m.conversation_id
        JOIN messaging.members o ON o.conversation_id = c.id AND o.account_id = m.other_id
        LEFT JOIN messaging.messages lm ON lm.conversation_id = c.id AND lm.sequence = c.last_sequence
        LEFT JOIN messaging.icebreakers i ON i.conversation_id = c.id
        """

    /// Conversation `id` as `account` sees it (caller checked access); `receipts`: the caller's
    /// tier shows the other side's read marker.
    static func view(_ id: UUID, account: UUID, receipts: Bool, on connection: Connection) async throws -> Messaging.Conversation {
        let rows = try await connection.query("SELECT \(viewColumns) \(viewJoins) WHERE m.account_id = $1 AND c.id = $2",
                                              [.uuid(account), .uuid(id)])
        guard let row = rows.first else { throw MessagingError.conversationNotFound }
        return try conversation(row, viewer: account, receipts: receipts).conversation
    }

    /// Up to `limit` of `account`'s conversations after `cursor`, the latest activity first.
    static func list(of account: UUID, after cursor: PageCursor?, limit: Int, receipts: Bool,
                     on connection: Connection) async throws -> [(conversation: Messaging.Conversation, activity: Int64)] {
        let rows = try await connection.query("""
            SELECT \(viewColumns) \(viewJoins)
            WHERE m.account_id = $1
              AND ($2::int8 IS NULL OR (\(UnixMicroseconds.sql("c.last_activity_at")), c.id) < ($2::int8, $3::uuid))
            ORDER BY c.last_activity_at DESC, c.id DESC
            LIMIT $4
            """, [.uuid(account), .int64(cursor?.microseconds), .uuid(cursor?.id), .int(limit)])
        return try rows.map { try conversation($0, viewer: account, receipts: receipts) }
    }

    private static func conversation(_ row: PostgresRow, viewer: UUID,
                                     receipts: Bool) throws -> (conversation: Messaging.Conversation, activity: Int64) {
        var conversation = Messaging.Conversation()
        conversation.conversationID = (try row.decode(0, as: UUID.self)).uuidString.lowercased()
        conversation.otherAccountID = (try row.decode(1, as: UUID.self)).uuidString.lowercased()
        conversation.matchedAt = Timestamp(microseconds: try row.decode(2))
        conversation.state = try row.decode(3, as: Bool.self) ? .closed : .open
        conversation.readThroughSequence = try row.decode(4)
        let otherReadThrough: Int64 = try row.decode(5)
        if receipts { conversation.otherReadThroughSequence = otherReadThrough }
        let activity: Int64 = try row.decode(6)
        conversation.lastActivityAt = Timestamp(microseconds: activity)
        conversation.unreadCount = try row.decode(7)
        conversation.lastMessage = try MessageStore.message(row, from: 8, conversation: conversation.conversationID,
                                                            viewer: viewer, otherReadThrough: receipts ? otherReadThrough : nil)
        conversation.icebreakers = try row.decode(15)
        return (conversation, activity)
    }

    /// The read of `account`'s unread messages, in total and in how many conversations
    /// (`unreadCount` reads its answer); GetUnreadCount sends it with other callers' reads.
    static func unread(of account: UUID) -> PostgresStatement {
        PostgresStatement("""
            SELECT coalesce(sum(n), 0)::int4, count(*) FILTER (WHERE n > 0)::int4 FROM (
                SELECT (SELECT count(*) FROM messaging.messages x
                        WHERE x.conversation_id = m.conversation_id AND x.sender_id <> m.account_id
                          AND x.sequence > m.read_through) AS n
                FROM messaging.members m WHERE m.account_id = $1) counts
            """, [.uuid(account)])
    }

    /// The count `unread(of:)`'s rows hold.
    static func unreadCount(_ rows: PostgresRows) throws -> Messaging.UnreadCount {
        Messaging.UnreadCount(total: try rows[0].decode(0), conversations: try rows[0].decode(1))
    }

    /// Moves `account`'s read marker in `id` forward to `sequence` (never back); returns the
    /// marker and whether it moved. Caller holds the conversation's lock.
    static func markRead(_ id: UUID, account: UUID, through sequence: Int64,
                         on connection: Connection) async throws -> (readThrough: Int64, moved: Bool) {
        let rows = try await connection.query("""
            UPDATE messaging.members SET read_through = $3
            WHERE conversation_id = $1 AND account_id = $2 AND read_through < $3
            RETURNING read_through
            """, [.uuid(id), .uuid(account), .int64(sequence)])
        if let row = rows.first { return (try row.decode(0), true) }
        let current = try await connection.query("""
            SELECT read_through FROM messaging.members WHERE conversation_id = $1 AND account_id = $2
            """, [.uuid(id), .uuid(account)])
        return (try current.first?.decode(0) ?? 0, false)
    }

    /// The other side's messages after `account`'s marker.
    static func unread(in id: UUID, account: UUID, on connection: Connection) async throws -> Int32 {
        let rows = try await connection.query("""
            SELECT count(*)::int4 FROM messaging.messages x
            JOIN messaging.members m ON m.conversation_id = x.conversation_id AND m.account_id = $2
            WHERE x.conversation_id = $1 AND x.sender_id <> $2 AND x.sequence > m.read_through
            """, [.uuid(id), .uuid(account)])
        return try rows[0].decode(0)
    }
}

extension ConversationStore {
    /// `account`'s read marker in conversation `id`.
    static func readThrough(of account: UUID, in id: UUID, on connection: Connection) async throws -> Int64 {
        let rows = try await connection.query("""
            SELECT read_through FROM messaging.members WHERE conversation_id = $1 AND account_id = $2
            """, [.uuid(id), .uuid(account)])
        return try rows.first?.decode(0) ?? 0
    }
}
