import Foundation
@testable import Messaging
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
