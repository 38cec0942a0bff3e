import Foundation
import Testing
@testable import Discovery

/// Ranking a window in memory, without I/O: the score's parts, Postgres's uuid order, page
/// tokens, the radius, and when a kept window still holds.
@Suite struct FeedRankingTests {
    static let day: Int64 = 86_400_000_000
    static let now: Int64 = 1_780_000_000_000_000

    static func candidate(_ id: String, distance: Double = 0, activeAt: Int64 = now - 20 * day) -> FeedCandidate {
        FeedCandidate(id: UUID(uuidString: id)!, distance: distance, tier: "free", activeAt: activeAt, boostedUntil: nil,
                      like: nil, mutualConnections: 0, sharedTagCount: 0)
    }

    @Test(arguments: [
        (0, 0, 280), (1, 0, 280), (day - 1, 0, 280), (day, 0, 260), (13 * day, 0, 20), (14 * day, 0, 0),
        (30 * day, 0, 0), (-day, 0, 280), (0, 1_999.9, 278), (0, 2_000, 276),
    ] as [(Int64, Double, Int64)])
    func score_activityAndDistance(age: Int64, distance: Double, expected: Int64) {
        let candidate = Self.candidate("00000000-0000-4000-8000-000000000001", distance: distance, activeAt: Self.now - age)
        #expect(candidate.score(asOf: Self.now, priorityTiers: []) == expected)
    }

    @Test func score_countsBoostTierLikeMutualsAndTags_asOfTheMoment() {
        var candidate = Self.candidate("00000000-0000-4000-8000-000000000001")
        candidate.boostedUntil = Self.now + 1
        candidate.tier = "black"
        candidate.like = (3, Self.now)
        candidate.mutualConnections = 2
        candidate.sharedTagCount = 3
        #expect(candidate.score(asOf: Self.now, priorityTiers: ["black"]) == 1000 + 200 + 250 + 800 + 300)
        // A moment later the boost has ended; a moment earlier the like was not made yet.
        #expect(candidate.score(asOf: Self.now + 1, priorityTiers: ["black"]) == 200 + 250 + 800 + 300)
        #expect(candidate.score(asOf: Self.now - 1, priorityTiers: []) == 1000 + 800 + 300)
    }

    @Test func page_ordersByScoreThenUUIDBytes_andResumesAfterTheToken() {
        let ids = ["ffffffff-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000002",
                   "00000000-0000-4000-8000-00000000000a", "80000000-0000-4000-8000-000000000000"]
        let window = ids.map { Self.candidate($0) } + [Self.candidate("00000000-0000-4000-8000-000000000003", distance: 60_000)]
        let first = FeedRanking.page(window, asOf: Self.now, priorityTiers: [], radiusMeters: 50_000, after: nil, limit: 3)
        #expect(first.map(\.candidate.id.uuidString) == [ids[1], ids[2], ids[3]].map { $0.uppercased() })
        let last = first[1]
        let rest = FeedRanking.page(window, asOf: Self.now, priorityTiers: [], radiusMeters: 50_000,
                                    after: FeedToken(asOf: Self.now, score: last.score, id: last.candidate.id), limit: 3)
        #expect(rest.map(\.candidate.id.uuidString) == [ids[3], ids[0]].map { $0.uppercased() })
        // Without a point there is no radius: the far one ranks too.
        #expect(FeedRanking.page(window, asOf: Self.now, priorityTiers: [], radiusMeters: nil, after: nil, limit: 9).count == 5)
    }

    /// The page is the window's best by a full sort, for any limit and token: with many ties in
    /// score (whole kilometres, whole days), the id decides.
    @Test func page_isTheFullySortedWindowsBest_forAnyLimitAndToken() {
        for _ in 0..<200 {
            let window = (0..<Int.random(in: 0...120)).map { _ in
                Self.candidate(UUID().uuidString, distance: Double(Int.random(in: 0...60)) * 1_000,
                               activeAt: Self.now - Int64.random(in: 0...20) * Self.day)
            }
            let sorted = window.filter { $0.distance <= 50_000 }
                .map { FeedRanking.Ranked(candidate: $0, score: $0.score(asOf: Self.now, priorityTiers: [])) }
                .sorted { $0.score != $1.score ? $0.score > $1.score : FeedRanking.precedes($0.candidate.id, $1.candidate.id) }
            let limit = Int.random(in: 0...130)
            let after = sorted.isEmpty || Bool.random() ? nil : sorted.indices.randomElement()
            let token = after.map { FeedToken(asOf: Self.now, score: sorted[$0].score, id: sorted[$0].candidate.id) }
            let expected = sorted[(after.map { $0 + 1 } ?? 0)...].prefix(limit).map(\.candidate.id)
            let page = FeedRanking.page(window, asOf: Self.now, priorityTiers: [], radiusMeters: 50_000, after: token, limit: limit)
            #expect(page.map(\.candidate.id) == Array(expected))
        }
    }

    @Test func keptWindow_holdsFromItsMomentToTheEndOfItsDay_whenNoOneWasListedAfter() {
        let moment = 20_000 * Self.day + 5
        var viewer = FeedStore.Viewer(tags: [], location: nil, latestListing: moment - 1)
        var window = FeedWindowCache.Window(stamp: FeedStamp(app: 1, member: 1, likesReceived: 0), asOf: moment,
                                            viewer: viewer, candidates: [])
        #expect(window.holds(asOf: moment) && window.holds(asOf: 20_001 * Self.day - 1))
        #expect(!window.holds(asOf: moment - 1) && !window.holds(asOf: 20_001 * Self.day))
        viewer.latestListing = moment + 1
        window.viewer = viewer
        #expect(!window.holds(asOf: moment + 2))
    }

    @Test func stamp_forgivesOnlyTheViewersOwnSwipes() {
        let stamp = FeedStamp(app: 7, member: 5, likesReceived: 2)
        #expect(stamp.ownSwipes(until: FeedStamp(app: 7, member: 8, likesReceived: 2)) == 3)
        #expect(stamp.ownSwipes(until: stamp) == nil)
        // A block or report (in units of otherChange), alone or beside swipes; the app; a like
        // received; a version that went back (the viewer deleted).
        for later in [FeedStamp(app: 7, member: 5 + FeedStamp.otherChange, likesReceived: 2),
                      FeedStamp(app: 7, member: 6 + FeedStamp.otherChange, likesReceived: 2),
                      FeedStamp(app: 8, member: 6, likesReceived: 2), FeedStamp(app: 7, member: 6, likesReceived: 3),
                      FeedStamp(app: 7, member: 0, likesReceived: 2)] {
            #expect(stamp.ownSwipes(until: later) == nil, "\(later)")
        }
    }

    @Test func windowWithoutSwiped_movesTheTailUp_untilItRunsOut() throws {
        let ids = (0..<(FeedStore.window + FeedStore.windowTail)).map { String(format: "00000000-0000-4000-8000-%012x", $0) }
        let stamp = FeedStamp(app: 1, member: 1, likesReceived: 0)
        let viewer = FeedStore.Viewer(tags: [], location: nil, latestListing: nil)
        let window = FeedWindowCache.Window(stamp: stamp, asOf: Self.now, viewer: viewer,
                                            candidates: ids.map { Self.candidate($0) })
        #expect(!window.complete && window.ranked.count == FeedStore.window)
        let later = FeedStamp(app: 1, member: 4, likesReceived: 0)
        let swiped = Set([ids[0], ids[10], ids[FeedStore.window + 5]].map { UUID(uuidString: $0)! })
        let next = try #require(window.without(swiped, stamp: later))
        #expect(next.stamp == later)
        // Two of the window's people gone, the tail's first two in their place, order kept.
        #expect(next.ranked.map(\.id) == ids.filter { !swiped.contains(UUID(uuidString: $0)!) }
            .prefix(FeedStore.window).map { UUID(uuidString: $0)! })
        #expect(next.ranked.last?.id == UUID(uuidString: ids[FeedStore.window + 1]))
        // Past the tail, the nearest after it were never read.
        #expect(window.without(Set(ids.prefix(FeedStore.windowTail + 1).map { UUID(uuidString: $0)! }), stamp: later) == nil)
        // A window that read everyone left shrinks instead.
        let small = FeedWindowCache.Window(stamp: stamp, asOf: Self.now, viewer: viewer,
                                           candidates: ids.prefix(10).map { Self.candidate($0) })
        #expect(small.complete)
        #expect(small.without(Set(ids.prefix(4).map { UUID(uuidString: $0)! }), stamp: later)?.ranked.count == 6)
    }
}
