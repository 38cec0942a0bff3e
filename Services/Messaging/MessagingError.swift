import Contracts
import RPC

/// Messaging's domain failures and the one place that decides their gRPC status and reason.
enum MessagingError: Error, Sendable, Equatable, RPCErrorConvertible {
    case invalidConversationID
    case conversationNotFound
    case notAParticipant
    case conversationClosed
    case invalidClientMessageID
    case emptyMessage
    case messageTooLong(limit: Int)
    case invalidMediaID
    case idempotencyKeyReused
    case invalidPageToken
    case invalidPageSize
    case invalidMessageID
    case messageNotFound
    case identityUnavailable
    case invalidCursor
    case subscriberTooSlow
    case cursorExpired
    case tokenExpired
    case accountNotFound

    var rpcError: RPCError {
        switch self {
        case .invalidConversationID:
            RPCError(Messaging.ErrorReason.invalidConversationID, message: "conversation_id is not a UUID")
        case .conversationNotFound:
            RPCError(Messaging.ErrorReason.conversationNotFound, message: "no such conversation")
        case .notAParticipant:
            RPCError(Messaging.ErrorReason.notAParticipant, message: "this conversation is not yours")
        case .conversationClosed:
            RPCError(Messaging.ErrorReason.conversationClosed, message: "this conversation has ended")
        case .invalidClientMessageID:
            RPCError(Messaging.ErrorReason.invalidClientMessageID, message: "client_message_id must be 1-64 characters")
        case .emptyMessage:
            RPCError(Messaging.ErrorReason.emptyMessage, message: "a message needs a text or a photo")
        case .messageTooLong(let limit):
            RPCError(Messaging.ErrorReason.messageTooLong, message: "a message has at most \(limit) characters",
                     details: ["limit": String(limit)])
        case .invalidMediaID:
            RPCError(Messaging.ErrorReason.invalidMediaID, message: "photo.media_id is not a UUID")
        case .idempotencyKeyReused:
            RPCError(Messaging.ErrorReason.idempotencyKeyReused,
                     message: "client_message_id was already used for a different message")
        case .invalidPageToken:
            RPCError(Messaging.ErrorReason.invalidPageToken, message: "page_token is not one of ours")
        case .invalidPageSize:
            RPCError(Messaging.ErrorReason.invalidPageSize, message: "page_size must not be negative")
        case .invalidMessageID:
            RPCError(Messaging.ErrorReason.invalidMessageID, message: "message_id is not a UUID")
        case .messageNotFound:
            RPCError(Messaging.ErrorReason.messageNotFound, message: "no such message in this conversation")
        case .identityUnavailable:
            RPCError(Messaging.ErrorReason.identityUnavailable, message: "tiers are unavailable; try again shortly")
        case .invalidCursor:
            RPCError(Messaging.ErrorReason.invalidCursor, message: "after_cursor is not a cursor of this stream")
        case .subscriberTooSlow:
            RPCError(Messaging.ErrorReason.subscriberTooSlow,
                     message: "the stream fell too far behind; subscribe again from the last cursor")
        case .cursorExpired:
            RPCError(Messaging.ErrorReason.cursorExpired,
                     message: "events after this cursor are no longer kept; reload and subscribe from 0")
        case .tokenExpired:
            RPCError(Platform.ErrorReason.tokenExpired, message: "the access token expired; subscribe again with a fresh one")
        case .accountNotFound:
            RPCError(Platform.ErrorReason.malformedToken, message: "the token's subject is not an account id")
        }
    }
}
