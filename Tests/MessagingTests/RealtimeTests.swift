import Contracts
import Foundation
import HTTP2
import RPC
import TestSupport
import Testing

/// Each member's realtime stream over the wire, with two messaging instances of one
/// deployment: fan-out between instances, resuming after a drop, and receipts by tier.
@Suite(.serialized, .messagingServices) struct RealtimeTests {
    @Test func aMessageSentThroughOneInstance_reachesAStreamOnTheOther() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben) = (try await members.join(), try await members.join())
        let anaStream = try await RealtimeProbe.open(members.realtime[1], token: ana.token)
        let benStream = try await RealtimeProbe.open(members.realtime[0], token: ben.token)
        defer {
            anaStream.cancel()
            benStream.cancel()
        }
        let id = try await members.match(ana, ben)
        let opened = try await anaStream.first { if case .match? = $0.event { true } else { false } }
        guard case .match(let match)? = opened.event else { return }
        #expect(match.conversation?.conversationID == id && match.conversation?.otherAccountID == ben.id)

        let sent = try #require(try await members.send("hello from instance 0", from: ben, in: id, instance: 0).message)
        let received = try await anaStream.first { $0.deliveredMessage?.messageID == sent.messageID }
        #expect(received.deliveredMessage == sent)
        #expect(received.cursor > opened.cursor)
        // The sender's other devices hear of it too.
        try await benStream.first { $0.deliveredMessage?.messageID == sent.messageID }
    }

    @Test func aDroppedStream_resumesFromItsCursor_onTheOtherInstance_withoutLossOrDuplicates() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben) = (try await members.join(), try await members.join())
        let id = try await members.match(ana, ben)
        let first = try await RealtimeProbe.open(members.realtime[1], token: ana.token)
        for n in 1...3 { _ = try await members.send("before \(n)", from: ben, in: id, instance: n % 2) }
        try await first.first { $0.deliveredMessage?.body == .text("before 3") }
        first.cancel()
        let cursor = first.lastCursor
        let before = first.deliveries.compactMap(\.deliveredMessage).map(\.sequence)
        #expect(before == [1, 2, 3])

        for n in 1...5 { _ = try await members.send("away \(n)", from: ben, in: id, instance: n % 2) }
        let resumed = try await RealtimeProbe.open(members.realtime[0], token: ana.token, after: cursor)
        defer { resumed.cancel() }
        _ = try await members.send("live", from: ben, in: id, instance: 1)
        try await resumed.first { $0.deliveredMessage?.body == .text("live") }
        // Exactly the five missed, in order, then the live one.
        let bodies = resumed.deliveries.map { event -> String in
            if case .text(let text)? = event.deliveredMessage?.body { return text }
            return "other"
        }
        #expect(bodies == ["away 1", "away 2", "away 3", "away 4", "away 5", "live"])
        #expect(resumed.events.count == bodies.count + 1)
        let cursors = resumed.deliveries.map(\.cursor)
        #expect(cursors == cursors.sorted() && Set(cursors).count == cursors.count && cursors.allSatisfy { $0 > cursor })

        // Resuming from the last cursor of all replays nothing.
        let again = try await RealtimeProbe.open(members.realtime[1], token: ana.token, after: resumed.lastCursor)
        defer { again.cancel() }
        #expect(again.deliveries.isEmpty)
    }

    /// An event in a member's stream whose payload does not decode (a bug's, or one written by
    /// hand) is left out, live and in a resume's replay, and the events around it are delivered:
    /// the stream does not fail at it, again at every resume.
    @Test func anEventThatDoesNotDecode_isLeftOut_liveAndOnResume() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben) = (try await members.join(), try await members.join())
        let id = try await members.match(ana, ben)
        let live = try await RealtimeProbe.open(members.realtime[0], token: ana.token)
        defer { live.cancel() }
        let cursor = live.lastCursor
        _ = try await members.send("before", from: ben, in: id, instance: 1)
        try await members.appendUndecodableEvent(for: ana)
        _ = try await members.send("after", from: ben, in: id, instance: 0)
        try await live.first { $0.deliveredMessage?.body == .text("after") }
        let resumed = try await RealtimeProbe.open(members.realtime[1], token: ana.token, after: cursor)
        defer { resumed.cancel() }
        for stream in [live, resumed] {
            #expect(stream.deliveries.compactMap(\.deliveredMessage?.body) == [.text("before"), .text("after")])
        }
    }

    /// realtime.proto: a resume replays every event committed before the call, then Ready. The
    /// hub learns of a commit a moment later (NOTIFY), and a message sent just before the resume
    /// used to come after Ready now and then (9 of 12 tries); now it comes before, every time,
    /// whichever instance sent it and whichever the stream resumes on.
    @Test func aResume_replaysWhatWasMissed_beforeReady_everyTime() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben) = (try await members.join(), try await members.join())
        let id = try await members.match(ana, ben)
        var stream = try await RealtimeProbe.open(members.realtime[0], token: ana.token)
        for attempt in 1...24 {
            stream.cancel()
            let cursor = stream.lastCursor
            let sent = try #require(try await members.send("missed \(attempt)", from: ben, in: id, instance: attempt % 2).message)
            stream = try await RealtimeProbe.open(members.realtime[(attempt / 2) % 2], token: ana.token, after: cursor)
            let order = stream.events.map { event -> String in
                if case .ready? = event.event { return "ready" }
                return event.deliveredMessage?.messageID == sent.messageID ? "missed" : "other"
            }
            #expect(order == ["missed", "ready"], "attempt \(attempt)")
        }
        stream.cancel()
    }

    /// A reader that stops reading is cut off once HTTP/2 flow control (about 2 MB on the way)
    /// and its 32 buffered events are full, not buffered without bound; resuming from the last
    /// event it took delivers the rest, each message once.
    @Test func aReaderThatStopsReading_isCutOff_andResumesWithoutLoss() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben) = (try await members.join(), try await members.join())
        let id = try await members.match(ana, ben)
        var small = HTTP2Configuration()
        small.initialStreamWindow = 65_535
        let port = try MessagingHarness.running.messaging[1].port
        let stalledClient = RPCClient(host: "127.0.0.1", port: port, configuration: small)
        defer { stalledClient.close() }
        let stalled = try await RealtimeClient(client: stalledClient).subscribe(.init(), options: .bearer(ana.token))
        var reader = stalled.makeAsyncIterator()
        guard case .ready? = try await reader.next()?.event else { throw RPCError(code: .internal, message: "no Ready") }

        // About 4 kB an event: 800 are about 3.3 MB, well past what the way holds.
        let text = String(repeating: "é", count: 2000)
        var sent: Set<String> = []
        for batch in 0..<100 {
            let ids = try await withThrowingTaskGroup(of: String.self) { group in
                for n in 0..<8 {
                    group.addTask {
                        try await members.send(text, from: ben, in: id, instance: n % 2, key: "bulk-\(batch)-\(n)").message?.messageID ?? ""
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            sent.formUnion(ids)
        }
        #expect(sent.count == 800)

        // Reading again: what was on the way, then the cut-off.
        var received: [String] = []
        var last: Int64 = 0
        do {
            while let event = try await reader.next() {
                if let message = event.deliveredMessage { received.append(message.messageID) }
                last = max(last, event.cursor)
            }
            Issue.record("the stalled stream ended without an error: \(await stalled.status())")
        } catch let error as RPCError {
            #expect(error.code == .resourceExhausted && error.reason == "SUBSCRIBER_TOO_SLOW", "\(error)")
        }
        #expect(received.count < 800, "taken before the cut-off: \(received.count)")
        let taken = received.count

        let resumed = try await RealtimeProbe.open(members.realtime[0], token: ana.token, after: last)
        defer { resumed.cancel() }
        try await members.waitUntil("the rest arrives") {
            resumed.deliveries.compactMap(\.deliveredMessage).count + taken >= 800
        }
        let rest = resumed.deliveries.compactMap(\.deliveredMessage).map(\.messageID)
        #expect(received.count + rest.count == 800)
        #expect(Set(received + rest) == sent)
    }

    @Test func receipts_reachOnlyTiersThatShowThem() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let plus = try await members.grantTier("plus", to: try await members.join("elite"))
        let free = try await members.join("elite")
        let id = try await members.match(plus, free)
        let plusStream = try await RealtimeProbe.open(members.realtime[0], token: plus.token)
        let freeStream = try await RealtimeProbe.open(members.realtime[1], token: free.token)
        defer {
            plusStream.cancel()
            freeStream.cancel()
        }
        let fromPlus = try #require(try await members.send("hi from plus", from: plus, in: id).message)
        let fromFree = try #require(try await members.send("hi from free", from: free, in: id, instance: 1).message)

        // The free member reads: the plus member sees it, live and in the history.
        _ = try await members.messaging[1].markRead(.init(conversationID: id), options: free.bearer)
        let receipt = try await plusStream.first { if case .readReceipt? = $0.event { true } else { false } }
        #expect(receipt.event == .readReceipt(.init(conversationID: id, readerID: free.id, readThroughSequence: fromFree.sequence,
                                                    readAt: { if case .readReceipt(let r)? = receipt.event { r.readAt } else { nil } }())))
        let plusView = try await members.messaging[0].listMessages(.init(conversationID: id), options: plus.bearer).messages
        #expect(plusView.first { $0.messageID == fromPlus.messageID }?.read == true)
        #expect(try await members.messaging[0].getConversation(.init(conversationID: id), options: plus.bearer)
            .otherReadThroughSequence == fromFree.sequence)

        // The plus member reads: the free member is not told, then or in the history.
        _ = try await members.messaging[0].markRead(.init(conversationID: id), options: plus.bearer)
        let after = try #require(try await members.send("anyone there?", from: plus, in: id).message)
        try await freeStream.first { $0.deliveredMessage?.messageID == after.messageID }
        #expect(!freeStream.deliveries.contains { if case .readReceipt? = $0.event { true } else { false } })
        let freeView = try await members.messaging[1].listMessages(.init(conversationID: id), options: free.bearer).messages
        #expect(freeView.first { $0.messageID == fromFree.messageID }?.read == false)
        let freeConversation = try await members.messaging[1].getConversation(.init(conversationID: id), options: free.bearer)
        #expect(freeConversation.otherReadThroughSequence == 0)
        #expect(freeConversation.readThroughSequence == fromFree.sequence)
    }

    @Test func aGroupSessionThatMatches_reachesEveryParticipantsStream() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let sessions = GroupSessionsClient(client: members.discovery.client)
        let (ana, ben) = (try await members.join(), try await members.join())
        let streams = [try await RealtimeProbe.open(members.realtime[0], token: ana.token),
                       try await RealtimeProbe.open(members.realtime[1], token: ben.token)]
        defer { streams.forEach { $0.cancel() } }
        let session = try await sessions.createSession(.init(categoryID: "cuisines", quorum: 2), options: ana.bearer)
        _ = try await sessions.joinSession(.init(inviteCode: session.inviteCode), options: ben.bearer)
        let option = try #require(try await sessions.getDeck(.init(sessionID: session.sessionID), options: ana.bearer).options.first)
        for member in [ana, ben] {
            _ = try await sessions.likeOption(.init(sessionID: session.sessionID, optionID: option.optionID), options: member.bearer)
        }
        for stream in streams {
            let matched = try await stream.first { if case .sessionMatched? = $0.event { true } else { false } }
            #expect(matched.event == .sessionMatched(.init(sessionID: session.sessionID, optionID: option.optionID,
                                                           optionName: option.label)))
        }
    }

    @Test func aCursorOlderThanTheRetention_isExpired() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben) = (try await members.join(), try await members.join())
        let id = try await members.match(ana, ben)
        let stream = try await RealtimeProbe.open(members.realtime[0], token: ana.token)
        let before = stream.lastCursor
        let sent = try #require(try await members.send("old news", from: ben, in: id).message)
        let delivered = try await stream.first { $0.deliveredMessage?.messageID == sent.messageID }
        stream.cancel()
        // A month passes for ana's events; the pruner (every 0.2 s here) removes them.
        _ = try await members.admin.withConnection { connection in
            try await connection.execute("""
                UPDATE messaging.realtime SET occurred_at = now() - interval '30 days' WHERE aggregate_id = $1
                """, [.text(ana.id)])
        }
        try await members.waitUntil("the pruner passes \(delivered.cursor)") {
            try await members.admin.withConnection { connection in
                try await connection.query("SELECT pruned_through FROM messaging.realtime_retention")[0].decode(0, as: Int64.self)
                    >= delivered.cursor
            }
        }
        do {
            _ = try await RealtimeProbe.open(members.realtime[1], token: ana.token, after: before)
            Issue.record("resumed from a pruned cursor")
        } catch let error as RPCError {
            #expect(error.code == .failedPrecondition && error.reason == "CURSOR_EXPIRED")
        }
        // From now on is always possible.
        let fresh = try await RealtimeProbe.open(members.realtime[1], token: ana.token)
        fresh.cancel()
    }

    @Test func aBadCursorOrNoToken_isRefused() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let ana = try await members.join()
        for cursor: Int64 in [-1, Int64.max / 2] {
            do {
                _ = try await RealtimeProbe.open(members.realtime[0], token: ana.token, after: cursor)
                Issue.record("cursor \(cursor) was accepted")
            } catch let error as RPCError {
                #expect(error.code == .invalidArgument && error.reason == "INVALID_CURSOR")
            }
        }
        do {
            _ = try await RealtimeProbe.open(members.realtime[0], token: "not a token")
            Issue.record("a stream opened without a token")
        } catch let error as RPCError {
            #expect(error.code == .unauthenticated)
        }
    }
}

