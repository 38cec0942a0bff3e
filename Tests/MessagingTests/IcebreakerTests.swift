import Contracts
import Foundation
@testable import Messaging
import Postgres
import RPC
import Testing

/// The pool of starters without I/O.
@Suite struct IcebreakerPoolTests {
    @Test func thePool_holdsThirtyDistinctStarters() {
        let all = IcebreakerPool.byCuisine.values.flatMap { $0 } + IcebreakerPool.anyone
        #expect(all.count == 30 && Set(all).count == 30)
    }

    @Test(arguments: [
        (["cuban"], 3, 0),
        (["thai", "mexican"], 3, 0),
        (["sushi-burritos"], 0, 3),
        ([], 0, 3),
    ] as [([String], Int, Int)])
    func starters_comeFromTheSharedCuisinesFirst(_ shared: [String], themed: Int, generic: Int) {
        let starters = IcebreakerPool.choose(sharedCuisines: Set(shared), seed: UUID())
        let pool = Set(shared.flatMap { IcebreakerPool.byCuisine[$0] ?? [] })
        #expect(starters.count == 3 && Set(starters).count == 3)
        #expect(starters.filter(pool.contains).count == themed)
        #expect(starters.filter(IcebreakerPool.anyone.contains).count == generic)
    }

    @Test func aMatch_alwaysGetsTheSameThree() {
        let match = UUID()
        let first = IcebreakerPool.choose(sharedCuisines: ["italian", "seafood"], seed: match)
        #expect((0..<5).allSatisfy { _ in IcebreakerPool.choose(sharedCuisines: ["italian", "seafood"], seed: match) == first })
    }
}

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
