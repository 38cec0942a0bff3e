import Contracts
import Foundation
import RPC
import Synchronization
import TestSupport
import Testing

/// Chat over the wire against identity, discovery and two messaging instances: who may read
/// and write, paging, read markers, previews, idempotent sends and closed conversations.
@Suite(.serialized, .messagingServices) struct ChatTests {
    @Test func matchedMembers_chat_withPagesPreviewsAndUnreadCounts() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben) = (try await members.join(), try await members.join())
        let id = try await members.match(ana, ben)
        for n in 1...25 { _ = try await members.send("hello \(n)", from: n.isMultiple(of: 5) ? ben : ana, in: id, instance: n % 2) }

        // Newest first, 20 a page, on either instance.
        let first = try await members.messaging[1].listMessages(.init(conversationID: id), options: ben.bearer)
        #expect(first.messages.map(\.sequence) == Array((6...25).reversed()))
        let second = try await members.messaging[0].listMessages(.init(conversationID: id, pageToken: first.nextPageToken),
                                                                 options: ben.bearer)
        #expect(second.messages.map(\.sequence) == Array((1...5).reversed()))
        #expect(second.nextPageToken.isEmpty)
        #expect(first.messages.first?.body == .text("hello 25"))

        // The match list's preview and counts: ben has 20 unread from ana, ana 5 from ben.
        let list = try await members.messaging[0].listConversations(.init(), options: ben.bearer)
        let conversation = try #require(list.conversations.first { $0.conversationID == id })
        #expect(conversation.lastMessage?.body == .text("hello 25"))
        #expect(conversation.otherAccountID == ana.id)
        #expect(conversation.unreadCount == 20)
        #expect(conversation.state == .open)
        #expect(try await members.messaging[0].getUnreadCount(.init(), options: ana.bearer).total == 5)

        // Marking read up to a message, then everything.
        let tenth = try #require(first.messages.first { $0.sequence == 10 })
        let partly = try await members.messaging[1].markRead(.init(conversationID: id, messageID: tenth.messageID),
                                                            options: ben.bearer)
        #expect(partly.readThroughSequence == 10)
        #expect(partly.unreadCount == 12)
        let all = try await members.messaging[0].markRead(.init(conversationID: id), options: ben.bearer)
        #expect(all.readThroughSequence == 25 && all.unreadCount == 0)
        // A marker never moves back.
        let back = try await members.messaging[0].markRead(.init(conversationID: id, messageID: tenth.messageID),
                                                          options: ben.bearer)
        #expect(back.readThroughSequence == 25)
        #expect(try await members.messaging[1].getUnreadCount(.init(), options: ben.bearer) == .init(total: 0, conversations: 0))

        // Photos by media id.
        let media = UUID().uuidString.lowercased()
        let photo = try await members.messaging[0].sendMessage(
            .init(conversationID: id, clientMessageID: "photo-1", body: .photo(.init(mediaID: media))), options: ana.bearer)
        #expect(photo.message?.body == .photo(.init(mediaID: media)))
        #expect(photo.message?.sequence == 26)
    }

    /// GetUnreadCount's reads go to Postgres with other callers' (`BatchedReads`): many at once,
    /// from several members, each answer is still the caller's own.
    @Test func concurrentUnreadCounts_eachAnswerTheirCaller() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        var readers: [(member: Member, unread: Int32)] = []
        for pair in 1...3 {
            let (writer, reader) = (try await members.join(), try await members.join())
            let id = try await members.match(writer, reader)
            for n in 0..<pair { _ = try await members.send("hello \(n)", from: writer, in: id, instance: n % 2) }
            readers.append((reader, Int32(pair)))
        }
        let answers = try await withThrowingTaskGroup(of: (Int32, Messaging.UnreadCount).self) { group in
            for round in 0..<40 {
                let (reader, unread) = readers[round % readers.count]
                group.addTask { (unread, try await members.messaging[round % 2].getUnreadCount(.init(), options: reader.bearer)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 40)
        for (unread, answer) in answers { #expect(answer == .init(total: unread, conversations: 1)) }
    }

    @Test func onlyTheTwoMembers_readOrWrite_andBadInputHasReasons() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben, eve) = (try await members.join(), try await members.join(), try await members.join())
        let id = try await members.match(ana, ben)
        let client = members.messaging[0]
        let denied: [(String, () async throws -> Void)] = [
            ("get", { _ = try await client.getConversation(.init(conversationID: id), options: eve.bearer) }),
            ("send", { _ = try await members.send("hi", from: eve, in: id) }),
            ("list", { _ = try await client.listMessages(.init(conversationID: id), options: eve.bearer) }),
            ("read", { _ = try await client.markRead(.init(conversationID: id), options: eve.bearer) }),
        ]
        for (name, call) in denied {
            let failure = await reason(of: call)
            #expect(failure?.code == .permissionDenied && failure?.reason == "NOT_A_PARTICIPANT", "\(name)")
        }
        #expect(try await client.listConversations(.init(), options: eve.bearer).conversations.isEmpty)

        func send(_ body: Messaging.SendMessageRequest.Body?, key: String = "k", in conversation: String = id) async -> String? {
            await reason { _ = try await client.sendMessage(.init(conversationID: conversation, clientMessageID: key, body: body),
                                                            options: ana.bearer) }?.reason
        }
        #expect(await send(.text("hi"), in: UUID().uuidString) == "CONVERSATION_NOT_FOUND")
        #expect(await send(.text("hi"), in: "not-a-uuid") == "INVALID_CONVERSATION_ID")
        #expect(await send(.text("  \n ")) == "EMPTY_MESSAGE")
        #expect(await send(nil) == "EMPTY_MESSAGE")
        #expect(await send(.text(String(repeating: "a", count: 2001))) == "MESSAGE_TOO_LONG")
        #expect(await send(.photo(.init(mediaID: "x"))) == "INVALID_MEDIA_ID")
        #expect(await send(.text("hi"), key: "") == "INVALID_CLIENT_MESSAGE_ID")
        #expect(await send(.text("hi"), key: String(repeating: "k", count: 65)) == "INVALID_CLIENT_MESSAGE_ID")
        #expect(await reason { _ = try await client.listMessages(.init(conversationID: id, pageToken: "zz"), options: ana.bearer) }?
            .reason == "INVALID_PAGE_TOKEN")
        #expect(await reason { _ = try await client.markRead(.init(conversationID: id, messageID: UUID().uuidString),
                                                             options: ana.bearer) }?.reason == "MESSAGE_NOT_FOUND")
        #expect(await reason { _ = try await client.getConversation(.init(conversationID: id)) }?.code == .unauthenticated)
        // 2000 characters is the limit, not past it.
        #expect(try await members.send(String(repeating: "é", count: 2000), from: ana, in: id).message?.sequence == 1)
    }

    @Test func aResend_returnsTheFirstMessage_andConcurrentSendsStoreOne() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben) = (try await members.join(), try await members.join())
        let id = try await members.match(ana, ben)
        let first = try await members.send("see you at 8", from: ana, in: id, instance: 0, key: "offline-1")
        let again = try await members.send("see you at 8", from: ana, in: id, instance: 1, key: "offline-1")
        #expect(!(first.replayed) && again.replayed)
        #expect(again.message?.messageID == first.message?.messageID)
        let changed = await reason { _ = try await members.send("see you at 9", from: ana, in: id, key: "offline-1") }
        #expect(changed?.code == .failedPrecondition && changed?.reason == "IDEMPOTENCY_KEY_REUSED")
        // The same key from the other member is their own message.
        #expect(try await members.send("ok", from: ben, in: id, key: "offline-1").replayed == false)

        // Eight devices' worth of the same queued send at once, over both instances.
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for n in 0..<8 {
                group.addTask { try await members.send("race", from: ana, in: id, instance: n % 2, key: "race-key").message?.messageID ?? "" }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        let stored = try await members.messaging[0].listMessages(.init(conversationID: id), options: ana.bearer).messages
        #expect(stored.filter { $0.clientMessageID == "race-key" }.count == 1)
        #expect(stored.map(\.sequence) == [3, 2, 1])
    }

    @Test func unmatchAndBlock_closeTheConversation_forBoth() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben, cat) = (try await members.join(), try await members.join(), try await members.join())
        let unmatched = try await members.match(ana, ben)
        let blocked = try await members.match(ana, cat)
        _ = try await members.send("hi ben", from: ana, in: unmatched)
        let benStream = try await RealtimeProbe.open(members.realtime[1], token: ben.token)
        let catStream = try await RealtimeProbe.open(members.realtime[0], token: cat.token)
        defer {
            benStream.cancel()
            catStream.cancel()
        }

        _ = try await members.discovery.unmatch(.init(matchID: unmatched), options: ana.bearer)
        let closed = try await benStream.first { if case .conversationClosed? = $0.event { true } else { false } }
        #expect(closed.event == .conversationClosed(.init(conversationID: unmatched, reason: .unmatched)))
        let late = await reason { _ = try await members.send("still there?", from: ben, in: unmatched) }
        #expect(late?.code == .failedPrecondition && late?.reason == "CONVERSATION_CLOSED")
        // Still readable.
        let history = try await members.messaging[0].listMessages(.init(conversationID: unmatched), options: ben.bearer)
        #expect(history.messages.map(\.body) == [.text("hi ben")])
        #expect(try await members.messaging[0].getConversation(.init(conversationID: unmatched), options: ben.bearer).state
            == .closed)

        // A block mid-conversation.
        _ = try await members.send("hi cat", from: ana, in: blocked)
        _ = try await members.safety.block(.init(accountID: ana.id), options: cat.bearer)
        _ = try await catStream.first { $0.event == .conversationClosed(.init(conversationID: blocked, reason: .blocked)) }
        for sender in [ana, cat] {
            #expect(await reason { _ = try await members.send("again", from: sender, in: blocked) }?.reason == "CONVERSATION_CLOSED")
        }
    }

    @Test func aDeletedAccount_takesItsConversationsWithIt() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben) = (try await members.join(), try await members.join())
        let id = try await members.match(ana, ben)
        _ = try await members.send("bye", from: ana, in: id)
        // Ben's stream names her (the match, her message); her own holds events too.
        let streams = { @Sendable () async throws -> (namingHer: Int64, hers: Int64) in
            try await members.admin.withConnection { connection in
                let row = try await connection.query("""
                    SELECT count(*) FILTER (WHERE aggregate_id = $1 AND position(convert_to($2, 'UTF8') IN payload) > 0)::int8,
                           count(*) FILTER (WHERE aggregate_id = $2)::int8
                    FROM messaging.realtime WHERE aggregate_id IN ($1, $2)
                    """, [.text(ben.id), .text(ana.id)])[0]
                return (try row.decode(0), try row.decode(1))
            }
        }
        let before = try await streams()
        #expect(before.namingHer >= 2 && before.hers >= 1)
        let benStream = try await RealtimeProbe.open(members.realtime[0], token: ben.token)
        defer { benStream.cancel() }
        _ = try await members.identity.deleteAccount(.init(), options: ana.bearer)
        try await benStream.first { $0.event == .conversationClosed(.init(conversationID: id, reason: .deleted)) }
        // The close may come first from discovery's MatchEnded; identity's AccountDeleted, which
        // removes the conversation, follows on a stream of its own.
        try await members.waitUntil("messaging applied the deletion") {
            try await members.admin.withConnection { connection in
                try await connection.query("SELECT count(*)::int8 FROM messaging.conversations WHERE id = $1::uuid",
                                           [.text(id)])[0].decode(0, as: Int64.self) == 0
            }
        }
        let gone = await reason { _ = try await members.messaging[1].getConversation(.init(conversationID: id), options: ben.bearer) }
        #expect(gone?.code == .notFound && gone?.reason == "CONVERSATION_NOT_FOUND")
        #expect(try await members.messaging[1].listConversations(.init(), options: ben.bearer).conversations.isEmpty)
        let left = try await members.admin.withConnection { connection in
            try await connection.query("SELECT count(*)::int8 FROM messaging.messages WHERE conversation_id = $1::uuid",
                                       [.text(id)])[0].decode(0, as: Int64.self)
        }
        #expect(left == 0)
        let after = try await streams()
        #expect(after.namingHer == 0 && after.hers == 0, "no realtime event names the deleted account: \(after)")
    }

    @Test func aBlockLiftedBeforeTheMatch_leavesItOpen() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben) = (try await members.join(), try await members.join())
        _ = try await members.safety.block(.init(accountID: ben.id), options: ana.bearer)
        _ = try await members.safety.unblock(.init(accountID: ben.id), options: ana.bearer)
        // Messaging (and discovery) have applied both before the match is made.
        let end = try await members.admin.withConnection { connection in
            try await connection.query("SELECT max(cursor) FROM identity.outbox WHERE type = 'UserUnblocked'")[0]
                .decode(0, as: Int64.self)
        }
        try await members.waitUntil("messaging and discovery follow identity past the unblock") {
            try await members.admin.withConnection { connection in
                let messaging = try await connection.query(
                    "SELECT cursor FROM messaging.event_cursors WHERE source = 'identity'").first?.decode(0, as: Int64.self) ?? 0
                let discovery = try await connection.query(
                    "SELECT cursor FROM discovery.event_cursors WHERE source = 'identity'").first?.decode(0, as: Int64.self) ?? 0
                return messaging >= end && discovery >= end
            }
        }
        let id = try await members.match(ana, ben)
        #expect(try await members.messaging[0].getConversation(.init(conversationID: id), options: ben.bearer).state == .open)
        #expect(try await members.send("hi", from: ben, in: id).message?.sequence == 1)
    }
}
