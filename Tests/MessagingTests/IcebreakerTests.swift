import Contracts
import Foundation
@testable import Messaging
import Postgres
import RPC
import Testing

/// Icebreakers over the wire: chosen when the match opens by the cuisines both prefer, shown
/// while the conversation is empty.
@Suite(.serialized, .messagingServices) struct IcebreakerTests {
    @Test func aNewMatch_getsStartersByItsSharedCuisine_untilTheFirstMessage() async throws {
        let members = try await MessagingMembers.make()
        defer { members.close() }
        let ana = try await members.join(cuisines: ["Cuban", "Thai"])
        let ben = try await members.join(cuisines: ["cuban", "Italian"])
        // Messaging learns tastes from identity's events, matches from discovery's.
        try await members.waitUntil("messaging has both tastes") {
            try await members.admin.withConnection { connection in
                try await connection.query("""
                    SELECT count(*)::int8 FROM messaging.member_tastes WHERE account_id = ANY($1::uuid[]) AND cardinality(cuisines) = 2
                    """, [.textArray([ana.id, ben.id])])[0].decode(0, as: Int64.self) == 2
            }
        }
        let id = try await members.match(ana, ben)
        let seen = try await members.messaging[1].getConversation(.init(conversationID: id), options: ben.bearer)
        #expect(seen.icebreakers.count == 3)
        #expect(Set(seen.icebreakers).isSubset(of: Set(IcebreakerPool.byCuisine["cuban"] ?? [])))
        let listed = try await members.messaging[0].listConversations(.init(), options: ana.bearer)
        #expect(listed.conversations.first { $0.conversationID == id }?.icebreakers == seen.icebreakers)

        _ = try await members.send(seen.icebreakers[0], from: ana, in: id)
        #expect(try await members.messaging[0].getConversation(.init(conversationID: id), options: ben.bearer).icebreakers.isEmpty)
    }
}
