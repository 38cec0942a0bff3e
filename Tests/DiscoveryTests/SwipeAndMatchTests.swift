import Auth
import Contracts
import Foundation
import RPC
import TestSupport
import Testing

/// Swipes, matches, quotas and their races, over the wire against the real executables.
@Suite(.serialized, .discoveryServices) struct SwipeAndMatchTests {
    @Test func mutualLike_makesOneMatch_returnedByTheLikeThatCompletesIt() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let ana = try await members.join("swivo")
        let ben = try await members.join("swivo")
        let first = try await members.swipe(ana, .like, on: ben)
        #expect(first.match == nil)
        #expect(first.swipe?.action == .like)
        let second = try await members.swipe(ben, .like, on: ana)
        let match = try #require(second.match)
        #expect(match.accountID == ana.id)
        #expect(!match.superLike)
        // Both see it; a repeat of the completing swipe returns the same match.
        let anaMatches = try await members.discovery.listMatches(.init(), options: ana.bearer).matches
        #expect(anaMatches.map(\.matchID) == [match.matchID])
        #expect(anaMatches.first?.accountID == ben.id)
        let repeated = try await members.swipe(ben, .like, on: ana)
        #expect(repeated.match?.matchID == match.matchID)
        #expect(repeated.swipe?.swipedAt == second.swipe?.swipedAt)
    }

    @Test func swipe_changeOfMind_isAlreadySwiped_andBadInputHasItsReason() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let ana = try await members.join("swivo")
        let ben = try await members.join("swivo")
        let other = try await members.join("unseen")
        _ = try await members.swipe(ana, .pass, on: ben)
        var failure = await reason { _ = try await members.swipe(ana, .like, on: ben) }
        #expect(failure?.code == .failedPrecondition)
        #expect(failure?.reason == "ALREADY_SWIPED")
        failure = await reason { _ = try await members.swipe(ana, .like, on: ana) }
        #expect(failure?.reason == "CANNOT_SWIPE_SELF")
        failure = await reason { _ = try await members.discovery.swipe(.init(accountID: "not-a-uuid", action: .like), options: ana.bearer) }
        #expect(failure?.code == .invalidArgument)
        #expect(failure?.reason == "INVALID_ACCOUNT_ID")
        failure = await reason { _ = try await members.discovery.swipe(.init(accountID: ben.id, action: .unspecified), options: ana.bearer) }
        #expect(failure?.reason == "INVALID_ACTION")
        failure = await reason { _ = try await members.swipe(ana, .like, on: other) }
        #expect(failure?.code == .notFound)
        #expect(failure?.reason == "USER_NOT_FOUND")
        failure = await reason {
            _ = try await members.discovery.swipe(.init(accountID: UUID().uuidString, action: .like), options: ana.bearer)
        }
        #expect(failure?.reason == "USER_NOT_FOUND")
        failure = await reason { _ = try await members.discovery.swipe(.init(accountID: ben.id, action: .like)) }
        #expect(failure?.code == .unauthenticated)
    }

    /// 32 pairs like each other at the same instant (64 concurrent callers): each pair gets
    /// exactly one match, and exactly one of its two likes returns it.
    @Test func crossingLikes_64ConcurrentCallers_makeExactlyOneMatchPerPair() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        var pairs: [(Member, Member)] = []
        for _ in 0..<32 { pairs.append((try await members.join("swivo"), try await members.join("swivo"))) }
        let responses = try await withThrowingTaskGroup(of: (Int, Discovery.SwipeResponse).self) { group in
            for (index, pair) in pairs.enumerated() {
                group.addTask { (index, try await members.swipe(pair.0, .like, on: pair.1)) }
                group.addTask { (index, try await members.swipe(pair.1, .like, on: pair.0)) }
            }
            var all: [(Int, Discovery.SwipeResponse)] = []
            for try await response in group { all.append(response) }
            return all
        }
        for (index, pair) in pairs.enumerated() {
            let returned = responses.filter { $0.0 == index }.compactMap { $0.1.match }
            #expect(returned.count == 1, "pair \(index): \(returned.count) responses carried the match")
            let listed = try await members.discovery.listMatches(.init(), options: pair.0.bearer).matches
            #expect(listed.count == 1)
            #expect(listed.first?.accountID == pair.1.id)
        }
    }

    /// ÉLITE free: 5 likes a day, no super-likes; passes are free. Ten concurrent likes from one
    /// account: exactly five succeed, the rest are QUOTA_EXCEEDED with the reset time.
    @Test func eliteFreeQuota_holdsUnderConcurrency_andSaysWhenItResets() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let liker = try await members.join("elite")
        var others: [Member] = []
        for _ in 0..<11 { others.append(try await members.join("elite")) }
        let quota = try await members.discovery.getQuota(.init(), options: liker.bearer)
        #expect(quota.likesRemaining == 5)
        #expect(quota.superLikesRemaining == 0)
        #expect(quota.tier == "free")
        let outcomes = await withTaskGroup(of: (code: StatusCode, reason: String?)?.self) { group in
            for other in others.prefix(10) {
                group.addTask { await reason { _ = try await members.swipe(liker, .like, on: other) } }
            }
            var all: [(code: StatusCode, reason: String?)?] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.filter { $0 == nil }.count == 5)
        #expect(outcomes.compactMap { $0 }.allSatisfy { $0.code == .resourceExhausted && $0.reason == "QUOTA_EXCEEDED" })
        do {
            _ = try await members.swipe(liker, .superLike, on: others[10])
            Issue.record("a free ÉLITE member super-liked")
        } catch let error as RPCError {
            #expect(error.reason == "QUOTA_EXCEEDED")
            let resetsAt = try #require(error.details["resets_at"].flatMap { Int64($0) })
            let midnight = (Int64(Date().timeIntervalSince1970) / 86_400 + 1) * 86_400
            #expect(resetsAt == midnight)
        }
        let pass = try await members.swipe(liker, .pass, on: others[10])
        #expect(pass.quota?.likesRemaining == 0)
        #expect(try await members.discovery.getQuota(.init(), options: liker.bearer).likesRemaining == 0)
    }

    /// Allowances are counted per UTC day (not the viewer's time zone): five likes spent today
    /// are refused with the reset time, the next UTC midnight, and are whole again once that
    /// midnight has passed. Two more discovery executables on the same database stand in for the
    /// passing day: their allowance clock (a test-only offset) reads 30 s before and 1 s after
    /// the reset time the first one reported; nothing else differs.
    @Test func likeQuota_spentToday_isWholeAgainAfterTheReportedUTCMidnight() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let stack = try DiscoveryHarness.running
        let liker = try await members.join("elite")
        var others: [Member] = []
        for _ in 0..<7 { others.append(try await members.join("elite")) }
        for other in others.prefix(5) { _ = try await members.swipe(liker, .like, on: other) }
        let midnightBefore = Self.nextUTCMidnight()
        let refusal = try await Self.quotaRefusal { _ = try await members.swipe(liker, .like, on: others[5]) }
        let resetsAt = refusal.resetsAt
        #expect(refusal.limit == 5)
        #expect(resetsAt == midnightBefore || resetsAt == Self.nextUTCMidnight(), "the reset is the next UTC midnight")
        #expect(resetsAt % 86_400 == 0)
        #expect(try await members.discovery.getQuota(.init(), options: liker.bearer).resetsAt?.seconds == resetsAt)

        let now = Int64(Date().timeIntervalSince1970)
        try await Self.withDiscovery(stack, clockOffset: resetsAt - now - 30) { lateToday in
            let quota = try await lateToday.getQuota(.init(), options: liker.bearer)
            #expect(quota.likesRemaining == 0, "30 s before the reset the likes are still spent")
            #expect(quota.resetsAt?.seconds == resetsAt)
            let refused = try await Self.quotaRefusal {
                _ = try await lateToday.swipe(.init(accountID: others[5].id, action: .like), options: liker.bearer)
            }
            #expect(refused.resetsAt == resetsAt)
        }
        try await Self.withDiscovery(stack, clockOffset: resetsAt - now + 1) { tomorrow in
            let quota = try await tomorrow.getQuota(.init(), options: liker.bearer)
            #expect(quota.likesRemaining == 5, "1 s after the reset the day's five likes are back")
            #expect(quota.resetsAt?.seconds == resetsAt + 86_400)
            let liked = try await tomorrow.swipe(.init(accountID: others[5].id, action: .like), options: liker.bearer)
            #expect(liked.swipe?.action == .like)
            #expect(liked.quota?.likesRemaining == 4)
            #expect(liked.quota?.resetsAt?.seconds == resetsAt + 86_400)
        }
        // The first instance is still in the spent day; the like made "tomorrow" counts there only.
        let today = try await members.discovery.getQuota(.init(), options: liker.bearer)
        #expect(today.likesRemaining == 0)
        #expect(today.resetsAt?.seconds == resetsAt)
        let refused = try await Self.quotaRefusal { _ = try await members.swipe(liker, .like, on: others[6]) }
        #expect(refused.resetsAt == resetsAt)
    }

    static func nextUTCMidnight() -> Int64 { (Int64(Date().timeIntervalSince1970) / 86_400 + 1) * 86_400 }

    /// The QUOTA_EXCEEDED details of what `call` threw; fails the test when it did not throw that.
    static func quotaRefusal(_ call: () async throws -> Void) async throws -> (resetsAt: Int64, limit: Int32) {
        do {
            try await call()
        } catch let error as RPCError {
            #expect(error.code == .resourceExhausted)
            #expect(error.reason == "QUOTA_EXCEEDED")
            return (try #require(error.details["resets_at"].flatMap { Int64($0) }),
                    try #require(error.details["limit"].flatMap { Int32($0) }))
        }
        Issue.record("the like was not refused")
        return (0, 0)
    }

    /// Runs `body` against one more discovery executable of the stack whose allowance clock reads
    /// `clockOffset` seconds off the system clock.
    static func withDiscovery(_ stack: DiscoveryStack, clockOffset: Int64,
                              _ body: (DiscoveryClient) async throws -> Void) async throws {
        let instance = try await stack.startDiscovery(environment: [
            "RV_DISCOVERY_TEST_CLOCK": "1", "RV_DISCOVERY_CLOCK_OFFSET_SECONDS": String(clockOffset),
        ])
        let client = RPCClient(host: "127.0.0.1", port: instance.port)
        do {
            try await body(DiscoveryClient(client: client))
        } catch {
            print("discovery (clock \(clockOffset) s) log:\n\(instance.log)")
            client.close()
            await instance.stop()
            throw error
        }
        client.close()
        await instance.stop()
    }

    /// FirstDate: one super-like a day, likes without limit.
    @Test func firstDate_oneSuperLikeADay() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let viewer = try await members.join("firstdate")
        let first = try await members.join("firstdate")
        let second = try await members.join("firstdate")
        let response = try await members.swipe(viewer, .superLike, on: first)
        #expect(response.quota?.superLikesRemaining == 0)
        #expect(response.quota?.likesRemaining == -1)
        let failure = await reason { _ = try await members.swipe(viewer, .superLike, on: second) }
        #expect(failure?.reason == "QUOTA_EXCEEDED")
        #expect(try await members.swipe(viewer, .like, on: second).swipe?.action == .like)
    }

    @Test func unmatch_endsItForBoth_andWatchEventsCarriesMatchCreatedAndEnded() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let ana = try await members.join("swivo")
        let ben = try await members.join("swivo")
        _ = try await members.swipe(ana, .like, on: ben)
        let match = try #require(try await members.swipe(ben, .like, on: ana).match)
        var failure = await reason { _ = try await members.discovery.unmatch(.init(matchID: "x"), options: ana.bearer) }
        #expect(failure?.reason == "INVALID_MATCH_ID")
        let stranger = try await members.join("swivo")
        failure = await reason { _ = try await members.discovery.unmatch(.init(matchID: match.matchID), options: stranger.bearer) }
        #expect(failure?.code == .notFound)
        #expect(failure?.reason == "MATCH_NOT_FOUND")
        #expect(try await members.discovery.unmatch(.init(matchID: match.matchID), options: ana.bearer).unmatched)
        #expect(try await !members.discovery.unmatch(.init(matchID: match.matchID), options: ben.bearer).unmatched)
        #expect(try await members.discovery.listMatches(.init(), options: ben.bearer).matches.isEmpty)

        let events = EventStreamClient(client: members.discovery.client)
        var seen: [String: Discovery.MatchEnded] = [:]
        var created = false
        let options = CallOptions.service(try ServiceCredential(name: "messaging", secret: DiscoveryHarness.messagingSecret))
        for try await event in try await events.watchEvents(.init(types: ["MatchCreated", "MatchEnded"]), options: options) {
            if event.aggregateID == match.matchID {
                if event.type == "MatchCreated" {
                    created = try Discovery.MatchCreated(serializedBytes: event.payload).accountIDs == [ben.id, ana.id]
                } else {
                    seen[event.type] = try Discovery.MatchEnded(serializedBytes: event.payload)
                    break
                }
            }
        }
        #expect(created)
        #expect(seen["MatchEnded"]?.reason == .unmatched)
        #expect(seen["MatchEnded"]?.endedBy == ana.id)
    }

    /// A block (identity's UserBlocked event) ends the pair's match and hides them both ways.
    @Test func block_endsTheMatch_andHidesEachFromTheOther() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let ana = try await members.join("swivo")
        let ben = try await members.join("swivo")
        _ = try await members.swipe(ana, .like, on: ben)
        _ = try #require(try await members.swipe(ben, .like, on: ana).match)
        _ = try await members.safety.block(.init(accountID: ana.id), options: ben.bearer)
        try await members.waitForDiscoveryToCatchUp()
        #expect(try await members.discovery.listMatches(.init(), options: ana.bearer).matches.isEmpty)
        let tag = TestDatabase.uniqueName("t")
        let carol = try await members.join("swivo", tags: [tag])
        let dan = try await members.join("swivo", tags: [tag])
        _ = try await members.safety.block(.init(accountID: dan.id), options: carol.bearer)
        try await members.waitForDiscoveryToCatchUp()
        let failure = await reason { _ = try await members.swipe(dan, .like, on: carol) }
        #expect(failure?.reason == "USER_NOT_FOUND")
        let carolFeed = try await members.discovery.getFeed(.init(pageSize: 5), options: carol.bearer).cards.map(\.accountID)
        let danFeed = try await members.discovery.getFeed(.init(pageSize: 5), options: dan.bearer).cards.map(\.accountID)
        #expect(!carolFeed.contains(dan.id))
        #expect(!danFeed.contains(carol.id))
    }
}
