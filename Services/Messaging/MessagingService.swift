import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.messaging.v1.Messaging`: conversations, messages, read markers. Rules are
/// documented in messaging.proto.
struct MessagingService: MessagingProvider {
    let pool: PostgresPool
    let tiers: TierCatalog
    let feed: RealtimeFeed
    /// Stores sends in batches (group commit, `GroupCommitQueue`).
    let sends: GroupCommitQueue<MessageSend, MessageSend.Outcome>
    /// GetUnreadCount's read, sent with other callers' (`BatchedReads`).
    let reads: BatchedReads

    func listConversations(_ request: Messaging.ListConversationsRequest,
                           context: ServerCallContext) async throws -> Messaging.ListConversationsResponse {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let pageSize = try PageCursor.pageSize(request.pageSize, defaultSize: 50, maximumSize: 100,
                                               invalid: MessagingError.invalidPageSize)
        let cursor = try PageCursor.parse(request.pageToken, invalid: MessagingError.invalidPageToken)
        let receipts = try await tiers.showsReadReceipts(app: caller.app, tier: caller.tier)
        let rows = try await pool.withConnection { connection in
            try await ConversationStore.list(of: account, after: cursor, limit: pageSize + 1, receipts: receipts, on: connection)
        }
        let page = rows.prefix(pageSize)
        var response = Messaging.ListConversationsResponse(conversations: page.map(\.conversation))
        if rows.count > pageSize, let last = page.last, let id = UUID(uuidString: last.conversation.conversationID) {
            response.nextPageToken = PageCursor(microseconds: last.activity, id: id).token
        }
        return response
    }

    func getConversation(_ request: Messaging.GetConversationRequest,
                         context: ServerCallContext) async throws -> Messaging.Conversation {
        let (caller, account, id) = try Self.call(request.conversationID, context)
        let receipts = try await tiers.showsReadReceipts(app: caller.app, tier: caller.tier)
        return try await pool.withConnection { connection in
            _ = try await ConversationStore.access(id, account: account, app: caller.app, lock: false, on: connection)
            return try await ConversationStore.view(id, account: account, receipts: receipts, on: connection)
        }
    }

    func sendMessage(_ request: Messaging.SendMessageRequest,
                     context: ServerCallContext) async throws -> Messaging.SendMessageResponse {
        let (caller, account, id) = try Self.call(request.conversationID, context)
        let key = request.clientMessageID
        guard !key.isEmpty, key.utf8.count <= MessageBody.maxClientMessageIDLength else {
            throw MessagingError.invalidClientMessageID
        }
        let body = try MessageBody(request.body)
        let send = MessageSend(conversation: id, sender: account, app: caller.app, clientMessageID: key, body: body)
        switch try await pool.withTransactionSpan({ try await sends.submit(send) }) {
        case .stored(let message):
            return Messaging.SendMessageResponse(message: message, replayed: false)
        case .replayed(let earlier):
            guard body.matches(earlier) else { throw MessagingError.idempotencyKeyReused }
            return Messaging.SendMessageResponse(message: earlier, replayed: true)
        case .conversationNotFound: throw MessagingError.conversationNotFound
        case .notAParticipant: throw MessagingError.notAParticipant
        case .closed: throw MessagingError.conversationClosed
        }
    }

    func listMessages(_ request: Messaging.ListMessagesRequest,
                      context: ServerCallContext) async throws -> Messaging.ListMessagesResponse {
        let (caller, account, id) = try Self.call(request.conversationID, context)
        let pageSize = try PageCursor.pageSize(request.pageSize, defaultSize: 20, maximumSize: 50,
                                               invalid: MessagingError.invalidPageSize)
        let before = try MessagePageToken.parse(request.pageToken)
        let receipts = try await tiers.showsReadReceipts(app: caller.app, tier: caller.tier)
        let messages = try await pool.withConnection { connection in
            let access = try await ConversationStore.access(id, account: account, app: caller.app, lock: false, on: connection)
            let otherReadThrough = receipts
                ? try await ConversationStore.readThrough(of: access.other, in: id, on: connection) : nil
            return try await MessageStore.page(of: id, before: before, limit: pageSize + 1, viewer: account,
                                               otherReadThrough: otherReadThrough, on: connection)
        }
        let page = messages.prefix(pageSize)
        var response = Messaging.ListMessagesResponse(messages: Array(page))
        if messages.count > pageSize, let last = page.last { response.nextPageToken = MessagePageToken.token(before: last.sequence) }
        return response
    }

    func markRead(_ request: Messaging.MarkReadRequest, context: ServerCallContext) async throws -> Messaging.MarkReadResponse {
        let (caller, account, id) = try Self.call(request.conversationID, context)
        let messageID: UUID?
        if request.messageID.isEmpty {
            messageID = nil
        } else {
            guard let parsed = UUID(uuidString: request.messageID) else { throw MessagingError.invalidMessageID }
            messageID = parsed
        }
        return try await pool.withTransaction { connection in
            let access = try await ConversationStore.access(id, account: account, app: caller.app, lock: true, on: connection)
            var through = access.lastSequence
            if let messageID {
                guard let sequence = try await MessageStore.sequence(of: messageID, in: id, on: connection) else {
                    throw MessagingError.messageNotFound
                }
                through = sequence
            }
            let (readThrough, moved) = try await ConversationStore.markRead(id, account: account, through: through,
                                                                            on: connection)
            if moved {
                var receipt = Realtime.ReadReceipt()
                receipt.conversationID = id.uuidString.lowercased()
                receipt.readerID = account.uuidString.lowercased()
                receipt.readThroughSequence = readThrough
                receipt.readAt = Timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
                var event = Realtime.RealtimeEvent()
                event.event = .readReceipt(receipt)
                try await feed.publish(event, type: "ReadReceipt", app: caller.app, to: [access.other], on: connection)
            }
            return Messaging.MarkReadResponse(readThroughSequence: readThrough,
                                              unreadCount: try await ConversationStore.unread(in: id, account: account,
                                                                                              on: connection))
        }
    }

    func getUnreadCount(_ request: Messaging.GetUnreadCountRequest,
                        context: ServerCallContext) async throws -> Messaging.UnreadCount {
        let account = try context.requireAccount().accountUUID()
        return try ConversationStore.unreadCount(try await reads.query(ConversationStore.unread(of: account)))
    }

    private static func call(_ conversationID: String,
                             _ context: ServerCallContext) throws -> (AuthenticatedAccount, UUID, UUID) {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        guard let id = UUID(uuidString: conversationID) else { throw MessagingError.invalidConversationID }
        return (caller, account, id)
    }
}

extension AuthenticatedAccount {
    /// The caller's account id as a UUID; a token whose subject is not one is refused.
    func accountUUID() throws(MessagingError) -> UUID {
        guard let id = UUID(uuidString: accountID) else { throw .accountNotFound }
        return id
    }
}
