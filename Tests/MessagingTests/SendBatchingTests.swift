import Contracts
import Foundation
import RPC
import TestSupport
import Testing

/// Sends stored in batches (group commit, `GroupCommitQueue`) over the wire: concurrent sends to
/// one conversation are each stored and delivered once, numbered in one order that each
/// sender's own sequence follows; an answer means the message committed; a retry after a
/// timed-out send finds the message the first attempt stored.
@Suite(.serialized, .messagingServices) struct SendBatchingTests {
    @Test func concurrentSends_toOneConversation_areEachDeliveredOnce_inOrder() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben) = (try await members.join(), try await members.join())
        let id = try await members.match(ana, ben)
        let anaStream = try await RealtimeProbe.open(members.realtime[0], token: ana.token)
        let benStream = try await RealtimeProbe.open(members.realtime[1], token: ben.token)
        defer {
            anaStream.cancel()
            benStream.cancel()
        }

        // Three rounds: ben's 20 sends all at once over both instances, while ana sends 8 one
        // after another (a round is fewer events than a stream buffers here, 32, however they
        // bunch up).
        var anaSent: [Messaging.Message] = []
        var benSent: [Messaging.Message] = []
        for round in 0..<3 {
            async let benSends = withThrowingTaskGroup(of: Messaging.Message?.self) { group in
                for n in 0..<20 {
                    group.addTask { try await members.send("ben \(round).\(n)", from: ben, in: id, instance: n % 2).message }
                }
                return try await group.reduce(into: [Messaging.Message]()) { if let message = $1 { $0.append(message) } }
            }
            for n in 0..<8 {
                let response = try await members.send("ana \(round).\(n)", from: ana, in: id, instance: n % 2)
                #expect(!response.replayed)
                anaSent.append(try #require(response.message))
            }
            benSent += try await benSends
            for (stream, sent) in [(benStream, anaSent), (anaStream, benSent)] {
                let wanted = Set(sent.map(\.messageID))
                try await members.waitUntil("\(sent.count) deliveries") {
                    Set(stream.deliveries.compactMap(\.deliveredMessage?.messageID)).isSuperset(of: wanted)
                }
            }
        }
        #expect(benSent.count == 60)
        // One numbering 1…84, and each sender's own order kept.
        #expect((anaSent + benSent).map(\.sequence).sorted() == Array(1...84))
        #expect(anaSent.map(\.sequence) == anaSent.map(\.sequence).sorted())

        // Each side's stream has each of the other's messages once, in sequence order, as answered.
        for (stream, sent) in [(benStream, anaSent), (anaStream, benSent)] {
            let wanted = Set(sent.map(\.messageID))
            let delivered = stream.deliveries.compactMap(\.deliveredMessage).filter { wanted.contains($0.messageID) }
            #expect(delivered.count == sent.count)
            #expect(delivered.map(\.sequence) == delivered.map(\.sequence).sorted())
            // The event is the answered message itself (its sequence and time come from the database).
            let answered = Dictionary(uniqueKeysWithValues: sent.map { ($0.messageID, $0) })
            #expect(delivered.allSatisfy { answered[$0.messageID] == $0 })
        }
        let stored = try await members.messaging[0].listMessages(.init(conversationID: id, pageSize: 50), options: ana.bearer)
        #expect(stored.messages.map(\.sequence) == Array((35...84).reversed()))
    }

    @Test func aSendThatTimedOut_isNotAnswered_untilItCommits_andItsRetryIsNotDuplicated() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let (ana, ben) = (try await members.join(), try await members.join())
        let id = try await members.match(ana, ben)
        let benStream = try await RealtimeProbe.open(members.realtime[1], token: ben.token)
        defer { benStream.cancel() }
        let request = Messaging.SendMessageRequest(conversationID: id, clientMessageID: "slow-1", body: .text("are you there?"))

        // The conversation's send lock held elsewhere (`SendMessagesMigration`): the send's batch
        // waits for it, and the caller's deadline passes with no answer. (That lock rather than the
        // conversation's row or table: either would give some transaction an id that stays open,
        // holding back every realtime stream of the cluster, other tests' included.)
        let failure: RPCError? = try await members.admin.withTransaction { connection in
            _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended('messaging.send:' || $1, 0))",
                                           [.text(id)])
            do {
                _ = try await members.messaging[0].sendMessage(request, options: .bearer(ana.token, timeout: .milliseconds(300)))
                return nil
            } catch let error as RPCError {
                return error
            }
        }
        #expect(failure?.code == .deadlineExceeded)

        // Once the lock goes the batch commits, and the app's retry finds that message.
        try await members.waitUntil("the timed-out send is stored") {
            try await members.messaging[1].listMessages(.init(conversationID: id), options: ana.bearer).messages.count == 1
        }
        let retry = try await members.messaging[1].sendMessage(request, options: ana.bearer)
        #expect(retry.replayed)
        let stored = try await members.messaging[0].listMessages(.init(conversationID: id), options: ana.bearer).messages
        #expect(stored.map(\.messageID) == [retry.message?.messageID])
        _ = try await benStream.first { $0.deliveredMessage?.clientMessageID == "slow-1" }
        try await Task.sleep(for: .milliseconds(300))
        #expect(benStream.deliveries.filter { $0.deliveredMessage?.clientMessageID == "slow-1" }.count == 1)
    }
}
