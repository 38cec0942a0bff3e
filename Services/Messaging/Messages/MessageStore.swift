import Contracts
import Foundation
import Postgres
import Runtime

/// Rows of `messaging.messages`: numbered 1, 2, 3… per conversation under the conversation's
/// row lock, unique per (conversation, sender, client message id). Sends store them in
/// batches: `MessageSendStore`.
enum MessageStore {
    /// The seven columns `message(_:from:…)` reads, of the messages row aliased `alias`.
    static func columns(_ alias: String) -> String {
        "\(alias).id, \(alias).sender_id, \(alias).client_message_id, \(alias).sequence, \(alias).text, \(alias).media_id, "
            + UnixMicroseconds.sql("\(alias).sent_at")
    }

    /// The message in `row` from column `index` on (nil when the columns are null: no message).
    /// `otherReadThrough` is given only when the viewer's tier shows receipts.
    static func message(_ row: PostgresRow, from index: Int, conversation: String, viewer: UUID,
                        otherReadThrough: Int64?) throws -> Messaging.Message? {
        guard let id = try row.decode(index, as: UUID?.self) else { return nil }
        var message = Messaging.Message()
        message.messageID = id.uuidString.lowercased()
        message.conversationID = conversation
        let sender: UUID = try row.decode(index + 1)
        message.senderID = sender.uuidString.lowercased()
        message.clientMessageID = try row.decode(index + 2)
        message.sequence = try row.decode(index + 3)
        if let text = try row.decode(index + 4, as: String?.self) {
            message.body = .text(text)
        } else if let media = try row.decode(index + 5, as: UUID?.self) {
            message.body = .photo(Messaging.Photo(mediaID: media.uuidString.lowercased()))
        }
        message.sentAt = Timestamp(microseconds: try row.decode(index + 6))
        if sender == viewer, let otherReadThrough { message.read = message.sequence <= otherReadThrough }
        return message
    }

    /// Up to `limit` messages of `conversation` below sequence `before` (all when nil), newest first.
    static func page(of conversation: UUID, before: Int64?, limit: Int, viewer: UUID, otherReadThrough: Int64?,
                     on connection: Connection) async throws -> [Messaging.Message] {
        let rows = try await connection.query("""
            SELECT \(columns("x")) FROM messaging.messages x
            WHERE x.conversation_id = $1 AND ($2::int8 IS NULL OR x.sequence < $2)
            ORDER BY x.sequence DESC
            LIMIT $3
            """, [.uuid(conversation), .int64(before), .int(limit)])
        let id = conversation.uuidString.lowercased()
        return try rows.compactMap { try message($0, from: 0, conversation: id, viewer: viewer, otherReadThrough: otherReadThrough) }
    }

    /// The sequence of message `id` in `conversation`, if it is one of its messages.
    static func sequence(of id: UUID, in conversation: UUID, on connection: Connection) async throws -> Int64? {
        let rows = try await connection.query("SELECT sequence FROM messaging.messages WHERE id = $1 AND conversation_id = $2",
                                              [.uuid(id), .uuid(conversation)])
        return try rows.first?.decode(0)
    }
}
