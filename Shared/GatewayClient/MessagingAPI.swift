public import ContractTypes
public import Foundation
public import RPCCore

extension GatewayClient {
    /// Conversations and messages of the caller's matches (`rendezvous.messaging.v1.Messaging`).
    public var messaging: MessagingAPI { MessagingAPI(runner: runner) }
}

/// The Messaging service as an app calls it, as the signed-in account. A conversation of
/// someone else is PERMISSION_DENIED `NOT_A_PARTICIPANT`, one that ended (unmatch, block) refuses
/// sends with FAILED_PRECONDITION `CONVERSATION_CLOSED` (`error.messagingReason`).
public struct MessagingAPI: Sendable {
    let runner: CallRunner

    /// Every Messaging method the client calls, with its retry and authentication rules.
    enum Methods {
        static let listConversations = GatewayMethod("Messaging/ListConversations", .read, .session)
        static let getConversation = GatewayMethod("Messaging/GetConversation", .read, .session)
        /// Every attempt carries the same client message id: the server stores one message and
        /// answers a resend with it.
        static let sendMessage = GatewayMethod("Messaging/SendMessage", .idempotentWrite, .session)
        static let listMessages = GatewayMethod("Messaging/ListMessages", .read, .session)
        /// A read marker only moves forward: a repeat changes nothing.
        static let markRead = GatewayMethod("Messaging/MarkRead", .idempotentWrite, .session)
        static let getUnreadCount = GatewayMethod("Messaging/GetUnreadCount", .read, .session)
    }

    private var stub: MessagingClient { MessagingClient(client: runner.transport) }

    /// One page of the caller's conversations, latest activity first, with previews and unread counts.
    public func conversations(pageSize: Int32 = 0, pageToken: String = "",
                              deadline: Duration? = nil) async throws(GatewayError) -> Messaging.ListConversationsResponse {
        let request = Messaging.ListConversationsRequest(pageSize: pageSize, pageToken: pageToken)
        return try await runner.run(Methods.listConversations, deadline: deadline) { [stub] options in
            try await stub.listConversations(request, options: options)
        }
    }

    /// One conversation of the caller's, with its preview, unread count and icebreakers.
    public func conversation(_ conversationID: String, deadline: Duration? = nil) async throws(GatewayError) -> Messaging.Conversation {
        let request = Messaging.GetConversationRequest(conversationID: conversationID)
        return try await runner.run(Methods.getConversation, deadline: deadline) { [stub] options in
            try await stub.getConversation(request, options: options)
        }
    }

    /// Sends a text. Keep `clientMessageID` with a message queued offline and pass it again on
    /// a later resend: the server then answers with the message it stored (`replayed`).
    public func send(text: String, in conversationID: String, clientMessageID: String = UUID().uuidString,
                     deadline: Duration? = nil) async throws(GatewayError) -> Messaging.SendMessageResponse {
        try await send(.text(text), in: conversationID, clientMessageID: clientMessageID, deadline: deadline)
    }

    /// Sends a photo already uploaded to media, by its media id.
    public func send(photo mediaID: String, in conversationID: String, clientMessageID: String = UUID().uuidString,
                     deadline: Duration? = nil) async throws(GatewayError) -> Messaging.SendMessageResponse {
        try await send(.photo(Messaging.Photo(mediaID: mediaID)), in: conversationID, clientMessageID: clientMessageID,
                       deadline: deadline)
    }

    private func send(_ body: Messaging.SendMessageRequest.Body, in conversationID: String, clientMessageID: String,
                      deadline: Duration?) async throws(GatewayError) -> Messaging.SendMessageResponse {
        let request = Messaging.SendMessageRequest(conversationID: conversationID, clientMessageID: clientMessageID, body: body)
        return try await runner.run(Methods.sendMessage, deadline: deadline) { [stub] options in
            try await stub.sendMessage(request, options: options)
        }
    }

    /// One page of a conversation's messages, newest first (20 unless `pageSize` says otherwise).
    public func messages(in conversationID: String, pageSize: Int32 = 0, pageToken: String = "",
                         deadline: Duration? = nil) async throws(GatewayError) -> Messaging.ListMessagesResponse {
        let request = Messaging.ListMessagesRequest(conversationID: conversationID, pageSize: pageSize, pageToken: pageToken)
        return try await runner.run(Methods.listMessages, deadline: deadline) { [stub] options in
            try await stub.listMessages(request, options: options)
        }
    }

    /// Marks the other side's messages read up to `messageID` (all of them when nil).
    @discardableResult
    public func markRead(in conversationID: String, through messageID: String? = nil,
                         deadline: Duration? = nil) async throws(GatewayError) -> Messaging.MarkReadResponse {
        let request = Messaging.MarkReadRequest(conversationID: conversationID, messageID: messageID ?? "")
        return try await runner.run(Methods.markRead, deadline: deadline) { [stub] options in
            try await stub.markRead(request, options: options)
        }
    }

    /// Unread messages over all the caller's conversations (the app badge).
    public func unreadCount(deadline: Duration? = nil) async throws(GatewayError) -> Messaging.UnreadCount {
        try await runner.run(Methods.getUnreadCount, deadline: deadline) { [stub] options in
            try await stub.getUnreadCount(.init(), options: options)
        }
    }
}

extension RPCError {
    /// The reason as messaging's contract types it (`.notAParticipant`, `.conversationClosed`…).
    public var messagingReason: Messaging.ErrorReason? { reason(as: Messaging.ErrorReason.self) }
}
