import Contracts
import Foundation
import Runtime

/// One validated `SendMessage` call on its way to the store, and what came of it.
struct MessageSend: Sendable {
    /// The new message's id, should it be stored.
    var id = UUID.random()
    var conversation: UUID
    var sender: UUID
    /// The caller's app: a conversation of another app is not found.
    var app: String
    var clientMessageID: String
    var body: MessageBody
    /// The trace its realtime events continue (`EventSpan`): taken where the call is served,
    /// since the batch is stored by a task of its own. Nil when the call's trace is not sampled.
    var trace: EventTraceContext? = EventSpan.produce("MessageReceived", count: 2)

    enum Outcome: Sendable {
        /// Stored, next in its conversation.
        case stored(Messaging.Message)
        /// The sender sent this client message id before: the message stored then.
        case replayed(Messaging.Message)
        case conversationNotFound
        case notAParticipant
        case closed
    }
}
