import Contracts
import Foundation
import RPC
import TestSupport
import Testing

/// A swipe that makes no match is one statement committed on its own; a like that completes a
/// match writes nothing there and is recorded again in the transaction that makes the match.
/// Either way the allowance is spent once, and a refused swipe spends none.
@Suite(.serialized, .discoveryServices) struct SwipeOneStatementTests {
    @Test func likeCompletingAMatch_spendsTheAllowanceOnce_andRefusedSwipesSpendNone() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let liker = try await members.join("elite")
        let admirer = try await members.join("elite")
        let stranger = try await members.join("elite")
        _ = try await members.swipe(admirer, .like, on: liker)
        let completing = try await members.swipe(liker, .like, on: admirer)
        #expect(completing.match?.accountID == admirer.id)
        #expect(completing.quota?.likesRemaining == 4)
        // Blocked: refused, nothing spent; a repeat of the like: answered, nothing spent.
        _ = try await members.safety.block(.init(accountID: liker.id), options: stranger.bearer)
        try await members.waitForDiscoveryToCatchUp()
        let failure = await reason { _ = try await members.swipe(liker, .like, on: stranger) }
        #expect(failure?.reason == "USER_NOT_FOUND")
        let repeated = try await members.swipe(liker, .like, on: admirer)
        #expect(repeated.match?.matchID == completing.match?.matchID)
        #expect(repeated.quota?.likesRemaining == 4)
        #expect(try await members.discovery.getQuota(.init(), options: liker.bearer).likesRemaining == 4)
    }
}
