import Contracts
import Foundation
import Postgres
import RPC
import TestSupport
import Testing

/// Swipes that make no match are one statement and one commit for all that arrived together
/// (group commit); a like that completes a match writes nothing there and is recorded again in
/// the transaction that makes the match. Either way the allowance is spent once, a refused swipe
/// spends none, and a swipe is answered only once it is committed.
@Suite(.serialized, .discoveryServices) struct SwipeOneStatementTests {
    /// 24 members each like one person and pass on another, all at once, and 8 of the likes are
    /// sent twice at the same time (a retry after a timeout): the swipes share commits, each
    /// answer is already committed when it arrives, and a doubled like is one row answered
    /// twice with the same time.
    @Test func concurrentSwipes_shareCommits_andEachAnswerIsCommitted() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        var swipers: [Member] = []
        var targets: [Member] = []
        for _ in 0..<24 { swipers.append(try await members.join("swivo")) }
        for _ in 0..<48 { targets.append(try await members.join("swivo")) }
        var calls: [(swiper: Member, action: Discovery.SwipeAction, target: Member)] = []
        for (index, swiper) in swipers.enumerated() {
            calls.append((swiper, .like, targets[2 * index]))
            calls.append((swiper, .pass, targets[2 * index + 1]))
            if index < 8 { calls.append((swiper, .like, targets[2 * index])) }
        }
        let admin = members.admin
        let answers = try await withThrowingTaskGroup(of: (Int, Discovery.Swipe?, Bool).self) { group in
            for (index, call) in calls.enumerated() {
                group.addTask {
                    let response = try await members.swipe(call.swiper, call.action, on: call.target)
                    // Read at once, by another connection: the answer means it is committed.
                    let stored = try await admin.withConnection { connection in
                        try await connection.query("""
                            SELECT 1 FROM discovery.swipes WHERE swiper_id = $1::uuid AND target_id = $2::uuid AND action = $3
                            """, [.text(call.swiper.id), .text(call.target.id), .int16(Int16(call.action.rawValue))])
                    }
                    return (index, response.swipe, stored.count == 1)
                }
            }
            return try await group.reduce(into: [Int: (Discovery.Swipe?, Bool)]()) { $0[$1.0] = ($1.1, $1.2) }
        }
        #expect(answers.count == calls.count)
        for (index, call) in calls.enumerated() {
            let (swipe, committed) = try #require(answers[index])
            #expect(swipe?.accountID == call.target.id && swipe?.action == call.action)
            #expect(committed, "swipe \(index) was answered before it was committed")
        }
        for index in 0..<8 {
            let first = answers[3 * index]?.0, retry = answers[3 * index + 2]?.0
            #expect(first?.swipedAt == retry?.swipedAt, "the doubled like of swiper \(index) has two times")
        }
        let stored = try await admin.withConnection { connection in
            try await connection.query("""
                SELECT count(*), count(DISTINCT xmin::text) FROM discovery.swipes WHERE swiper_id = ANY($1::uuid[])
                """, [.uuidArray(swipers.map { UUID(uuidString: $0.id)! })])
        }
        let (rows, commits) = (try stored[0].decode(0, as: Int64.self), try stored[0].decode(1, as: Int64.self))
        #expect(rows == 48)
        #expect(commits < rows, "48 concurrent swipes were 48 commits: none shared a batch")
    }

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
