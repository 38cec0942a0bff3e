import Contracts
import Foundation
import Postgres
import Runtime

/// Stores a batch of sends and their realtime events (to the recipient and to the sender's
/// other devices) in one statement, its own transaction: one round trip and one WAL flush for
/// the batch. `messaging.send_messages` judges and stores the sends (`SendMessagesMigration`);
/// each stored message's event is the service's encoding of what it knew before
/// (`pendingEvent`) followed by the database's `realtime_message_tail` (sequence and time).
enum MessageSendStore {
    static func send(_ sends: [MessageSend], feed: RealtimeFeed,
                     on connection: Connection) async throws -> [MessageSend.Outcome] {
        let events = feed.outbox.insertSQL(selecting: """
            SELECT gen_random_uuid() AS id, 'MessageReceived' AS type, s.app, r.recipient::text AS aggregate_id, s.payload,
                   s.traceparent, s.tracestate
            FROM stored s CROSS JOIN LATERAL (VALUES (1, s.r_other), (2, s.sender)) AS r(rank, recipient)
            ORDER BY s.r_ordinal, r.rank
            """)
        let rows = try await connection.query("""
            WITH sent AS (
                SELECT * FROM messaging.send_messages($1, $2, $3, $4, $5, $6, $7)),
            stored AS MATERIALIZED (
                SELECT r_ordinal, r_other, ($3::uuid[])[r_ordinal] AS sender, ($4::text[])[r_ordinal] AS app,
                       ($8::bytea[])[r_ordinal] || messaging.realtime_message_tail(r_sequence, r_sent_at) AS payload,
                       ($9::text[])[r_ordinal] AS traceparent, ($10::text[])[r_ordinal] AS tracestate
                FROM sent WHERE r_outcome = \(SendMessagesMigration.stored)),
            events AS (\(events))
            SELECT r_outcome, r_id, r_sequence, r_text, r_media, r_sent_at FROM sent ORDER BY r_ordinal
            """, [.uuidArray(sends.map(\.id)), .uuidArray(sends.map(\.conversation)), .uuidArray(sends.map(\.sender)),
                  .textArray(sends.map(\.app)), .textArray(sends.map(\.clientMessageID)),
                  .textArray(elements: sends.map { if case .text(let text) = $0.body { text } else { nil } }),
                  .uuidArray(elements: sends.map { if case .photo(let id) = $0.body { id } else { nil } }),
                  .byteaArray(sends.map { pendingEvent($0).serializedBytes() }),
                  .textArray(elements: sends.map { $0.trace?.traceParent }), .textArray(elements: sends.map { $0.trace?.traceState })])
        guard rows.count == sends.count else {
            throw PostgresError(code: .protocolViolation, context: "send_messages answered \(rows.count) of \(sends.count) sends")
        }
        let outcomes = try zip(sends, rows).map { send, row -> MessageSend.Outcome in
            switch try row.decode(0, as: Int16.self) {
            case SendMessagesMigration.conversationNotFound: .conversationNotFound
            case SendMessagesMigration.notAParticipant: .notAParticipant
            case SendMessagesMigration.closed: .closed
            case SendMessagesMigration.replayed: .replayed(try message(send, row))
            default: .stored(try message(send, row))
            }
        }
        if outcomes.contains(where: { if case .stored = $0 { true } else { false } }) { feed.outbox.committed() }
        return outcomes
    }

    /// The realtime event of `send` stored, but for its sequence and time.
    private static func pendingEvent(_ send: MessageSend) -> Realtime.RealtimeEvent {
        var message = Messaging.Message()
        message.messageID = send.id.uuidString.lowercased()
        message.conversationID = send.conversation.uuidString.lowercased()
        message.senderID = send.sender.uuidString.lowercased()
        message.clientMessageID = send.clientMessageID
        switch send.body {
        case .text(let text): message.body = .text(text)
        case .photo(let id): message.body = .photo(Messaging.Photo(mediaID: id.uuidString.lowercased()))
        }
        var event = Realtime.RealtimeEvent()
        event.event = .message(Realtime.MessageReceived(message: message))
        return event
    }

    /// The message in columns 1-5 of `row`, sent by `send`'s sender under its client message id.
    private static func message(_ send: MessageSend, _ row: PostgresRow) throws -> Messaging.Message {
        var message = Messaging.Message()
        message.messageID = (try row.decode(1, as: UUID.self)).uuidString.lowercased()
        message.conversationID = send.conversation.uuidString.lowercased()
        message.senderID = send.sender.uuidString.lowercased()
        message.clientMessageID = send.clientMessageID
        message.sequence = try row.decode(2)
        if let text = try row.decode(3, as: String?.self) {
            message.body = .text(text)
        } else if let media = try row.decode(4, as: UUID?.self) {
            message.body = .photo(Messaging.Photo(mediaID: media.uuidString.lowercased()))
        }
        message.sentAt = Timestamp(microseconds: try row.decode(5))
        return message
    }
}
