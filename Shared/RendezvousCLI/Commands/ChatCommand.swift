import ArgumentParser
import Contracts
import GatewayClient

/// `rendezvous chat list|show|send|read`: conversations with your matches.
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "chat", abstract: "Chat with your matches.",
                                                    subcommands: [List.self, Show.self, Send.self, Read.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your conversations, the most recent first.")
        @OptionGroup var options: GlobalOptions
        @Option(name: .customLong("page-token")) var pageToken = ""

        func run() async throws {
            try await options.withClient { client, output in
                let page = try await client.messaging.conversations(pageToken: pageToken)
                output.emit(["conversations": page.conversations.map(ChatJSON.conversation), "next_page_token": page.nextPageToken]) {
                    guard !page.conversations.isEmpty else { return "no conversations yet" }
                    return Output.table(["CONVERSATION", "WITH", "UNREAD", "LAST MESSAGE", "ACTIVE"], page.conversations.map {
                        [$0.conversationID, $0.otherAccountID, String($0.unreadCount), $0.lastMessage.map(ChatJSON.bodyText) ?? "",
                         iso($0.lastActivityAt)]
                    })
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a conversation's messages, newest first.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The conversation id (from `rendezvous chat list`).") var conversationID: String
        @Option(help: "Messages per page (0: the server's default).") var limit: Int32 = 0
        @Option(name: .customLong("page-token")) var pageToken = ""

        func run() async throws {
            try await options.withClient { client, output in
                let conversation = try await client.messaging.conversation(conversationID)
                let page = try await client.messaging.messages(in: conversationID, pageSize: limit, pageToken: pageToken)
                let me = try client.currentSession()?.accountID ?? ""
                var object = ChatJSON.conversation(conversation)
                object["messages"] = page.messages.map(ChatJSON.message)
                object["next_page_token"] = page.nextPageToken
                output.emit(object) {
                    var lines = ["conversation \(conversation.conversationID) with \(conversation.otherAccountID)"]
                    if !conversation.icebreakers.isEmpty {
                        lines.append("icebreakers: " + conversation.icebreakers.joined(separator: " · "))
                    }
                    for message in page.messages.reversed() {
                        let who = message.senderID == me ? "me" : "them"
                        let receipt = message.senderID == me && message.sequence <= conversation.otherReadThroughSequence ? " ✓✓" : ""
                        lines.append("[\(iso(message.sentAt))] \(who): \(ChatJSON.bodyText(message))\(receipt)")
                    }
                    return lines.joined(separator: "\n")
                }
            }
        }
    }

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a text message.")
        @OptionGroup var options: GlobalOptions
        @Argument var conversationID: String
        @Argument(help: "The text.") var text: String

        func run() async throws {
            try await options.withClient { client, output in
                let sent = try await client.messaging.send(text: text, in: conversationID)
                let message = sent.message ?? Messaging.Message()
                output.emit(ChatJSON.message(message)) { "sent \(message.messageID) (#\(message.sequence))" }
            }
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark a conversation read (through a message, or all of it).")
        @OptionGroup var options: GlobalOptions
        @Argument var conversationID: String
        @Option(help: "Mark read through this message id only.") var through: String?

        func run() async throws {
            try await options.withClient { client, output in
                let read = try await client.messaging.markRead(in: conversationID, through: through)
                output.emit(["read_through_sequence": read.readThroughSequence, "unread_count": Int(read.unreadCount)]) {
                    "read through #\(read.readThroughSequence); \(read.unreadCount) unread left"
                }
            }
        }
    }
}

enum ChatJSON {
    static func conversation(_ conversation: Messaging.Conversation) -> JSONObject {
        var object: JSONObject = [
            "conversation_id": conversation.conversationID, "other_account_id": conversation.otherAccountID,
            "matched_at": isoJSON(conversation.matchedAt), "unread_count": Int(conversation.unreadCount),
            "read_through_sequence": conversation.readThroughSequence,
            "other_read_through_sequence": conversation.otherReadThroughSequence,
            "last_activity_at": isoJSON(conversation.lastActivityAt), "icebreakers": conversation.icebreakers,
        ]
        if let last = conversation.lastMessage { object["last_message"] = message(last) }
        return object
    }

    static func message(_ message: Messaging.Message) -> JSONObject {
        var object: JSONObject = [
            "message_id": message.messageID, "conversation_id": message.conversationID, "sender_id": message.senderID,
            "sequence": message.sequence, "sent_at": isoJSON(message.sentAt), "read": message.read,
        ]
        switch message.body {
        case .text(let text)?: object["text"] = text
        case .photo(let photo)?: object["photo_media_id"] = photo.mediaID
        case nil: break
        }
        return object
    }

    static func bodyText(_ message: Messaging.Message) -> String {
        switch message.body {
        case .text(let text)?: text
        case .photo(let photo)?: "[photo \(photo.mediaID)]"
        case nil: ""
        }
    }
}
