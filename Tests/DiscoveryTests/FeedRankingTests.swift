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
}
