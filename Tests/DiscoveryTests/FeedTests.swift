import Contracts
import Foundation
import RPC
import TestSupport
import Testing

/// The feed's rules, over the wire. Each test places its people at a spot of its own (within
/// the default 50 km radius of each other, far from everyone else's), so the shared database's
/// other people never appear.
@Suite(.serialized, .discoveryServices) struct FeedTests {
    static func spot() -> (Double, Double) {
        (Double.random(in: -50...50), Double.random(in: -170...170))
    }

    @Test func feed_ranksSharedTagsThenLikes_andNeverShowsWhatItMustNot() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = Self.spot()
        let near = (here.0 + 0.01, here.1 + 0.01)
        let viewer = try await members.join("elite", tags: ["jazz", "sailing", "wine"], location: here)
        let twoTags = try await members.join("elite", tags: ["jazz", "wine"], location: near)
        let likedViewer = try await members.join("elite", tags: ["golf"], location: near)
        let plain = try await members.join("elite", location: near)
        let passed = try await members.join("elite", tags: ["jazz", "sailing", "wine"], location: near)
        let blockedViewer = try await members.join("elite", tags: ["jazz"], location: near)
        let blockedByViewer = try await members.join("elite", tags: ["jazz"], location: near)
        let reported = try await members.join("elite", tags: ["jazz"], location: near)
        let inactive = try await members.join("elite", tags: ["jazz"], location: near, active: false)
        let far = try await members.join("elite", tags: ["jazz"], location: (here.0 + 2, here.1))
        let otherApp = try await members.join("firstdate", tags: ["jazz"], location: near)
        _ = try await members.swipe(likedViewer, .like, on: viewer)
        _ = try await members.swipe(viewer, .pass, on: passed)
        _ = try await members.safety.block(.init(accountID: viewer.id), options: blockedViewer.bearer)
        _ = try await members.safety.block(.init(accountID: blockedByViewer.id), options: viewer.bearer)
        _ = try await members.safety.report(.init(accountID: reported.id, reason: .spam), options: viewer.bearer)
        try await members.waitForDiscoveryToCatchUp()

        let cards = try await members.feed(of: viewer)
        #expect(cards.map(\.accountID) == [twoTags.id, likedViewer.id, plain.id],
                "inactive \(inactive.id), far \(far.id), other app \(otherApp.id)")
        let first = try #require(cards.first)
        #expect(first.sharedTags == ["jazz", "wine"])
        // 1.3 to 1.6 km away; measured from their grid point, within 0.8 km of that, and shown in
        // whole kilometres.
        #expect(first.distanceMeters == 1000 || first.distanceMeters == 2000)
        #expect(first.age == 30 || first.age == 29)
        #expect(first.publicName.hasPrefix("Person "))
        // Others see the viewer, except whoever blocked them.
        #expect(try await members.feed(of: plain).map(\.accountID).contains(viewer.id))
        #expect(try await !members.feed(of: blockedViewer).map(\.accountID).contains(viewer.id))
    }

    @Test func feedPages_stayStable_whileNewPeopleArrive() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = Self.spot()
        let viewer = try await members.join("swivo", location: here)
        var people: [String] = []
        for _ in 0..<5 { people.append(try await members.join("swivo", location: (here.0 + 0.01, here.1)).id) }
        var page = try await members.discovery.getFeed(.init(pageSize: 2), options: viewer.bearer)
        var seen = page.cards.map(\.accountID)
        // Someone who would rank first arrives after the first page: later pages do not shift.
        let newcomer = try await members.join("swivo", location: here)
        while !page.nextPageToken.isEmpty {
            page = try await members.discovery.getFeed(.init(pageSize: 2, pageToken: page.nextPageToken), options: viewer.bearer)
            seen += page.cards.map(\.accountID)
        }
        #expect(seen.sorted() == people.sorted())
        #expect(try await members.feed(of: viewer).map(\.accountID).contains(newcomer.id))
    }

    @Test func filters_areCheckedAndGatedByTier() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = Self.spot()
        let eliteFree = try await members.join("elite", location: here)
        var filters = Discovery.FeedFilters()
        filters.minAge = 25
        var failure = await reason { _ = try await members.feed(of: eliteFree, filters: filters) }
        #expect(failure?.code == .permissionDenied)
        #expect(failure?.reason == "FILTERS_REQUIRE_TIER")

        // FirstDate's deal-breakers are everyone's: age range and cuisine.
        let viewer = try await members.join("firstdate", location: here)
        let young = try await members.join("firstdate", location: here, age: 22, cuisines: ["thai"])
        let match = try await members.join("firstdate", location: here, age: 31, cuisines: ["thai", "sushi"])
        let wrongCuisine = try await members.join("firstdate", location: here, age: 31, cuisines: ["pizza"])
        filters = Discovery.FeedFilters()
        filters.minAge = 25
        filters.maxAge = 40
        filters.cuisines = ["thai"]
        let cards = try await members.feed(of: viewer, filters: filters).map(\.accountID)
        #expect(cards == [match.id], "young \(young.id), pizza \(wrongCuisine.id)")

        for bad in [Discovery.FeedFilters(minAge: 10), Discovery.FeedFilters(minAge: 40, maxAge: 30),
                    Discovery.FeedFilters(maxDistanceKm: 900)] {
            failure = await reason { _ = try await members.feed(of: viewer, filters: bad) }
            #expect(failure?.code == .invalidArgument)
            #expect(failure?.reason == "INVALID_FILTER")
        }
        failure = await reason {
            _ = try await members.discovery.getFeed(.init(pageToken: "bm90LWEtdG9rZW4"), options: viewer.bearer)
        }
        #expect(failure?.reason == "INVALID_PAGE_TOKEN")
        failure = await reason { _ = try await members.discovery.getFeed(.init(pageSize: -1), options: viewer.bearer) }
        #expect(failure?.reason == "INVALID_PAGE_SIZE")
    }

    @Test func likesReceived_eliteFreeSeesThemBlurred() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = Self.spot()
        let viewer = try await members.join("elite", location: here)
        let admirer = try await members.join("elite", location: here)
        _ = try await members.swipe(admirer, .like, on: viewer)
        let likes = try await members.discovery.getLikesReceived(.init(), options: viewer.bearer)
        #expect(likes.count == 1)
        #expect(likes.visibility == .blurred)
        #expect(likes.likes.count == 1)
        #expect(likes.likes.first?.accountID == "")
        #expect(likes.likes.first?.publicName == "")
        // Answered likes no longer count.
        _ = try await members.swipe(viewer, .pass, on: admirer)
        #expect(try await members.discovery.getLikesReceived(.init(), options: viewer.bearer).count == 0)
    }

    /// Paging through blurred likes one at a time reaches each once, and no page token names a
    /// liker (a token is only base64url: one held the liker's account id, so a free member could
    /// read who liked them and like them back into a match).
    @Test func blurredLikes_pageWithoutNamingTheLikers() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = Self.spot()
        let viewer = try await members.join("elite", location: here)
        var admirers: [String] = []
        for _ in 0..<3 {
            let admirer = try await members.join("elite", location: here)
            _ = try await members.swipe(admirer, .like, on: viewer)
            admirers.append(admirer.id)
        }
        var token = ""
        var seen: [Discovery.LikeReceived] = []
        var tokens: [String] = []
        repeat {
            let page = try await members.discovery.getLikesReceived(.init(pageSize: 1, pageToken: token), options: viewer.bearer)
            #expect(page.visibility == .blurred && page.count == 3)
            seen += page.likes
            token = page.nextPageToken
            if !token.isEmpty { tokens.append(token) }
        } while !token.isEmpty && seen.count < 10
        #expect(seen.count == 3 && seen.allSatisfy { $0.accountID.isEmpty && $0.publicName.isEmpty })
        #expect(seen.compactMap(\.likedAt) == seen.compactMap(\.likedAt).sorted(by: >) && seen.allSatisfy { $0.likedAt != nil })
        #expect(tokens.count == 2)
        for token in tokens {
            var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            let decoded = String(decoding: Data(base64Encoded: base64) ?? Data(), as: UTF8.self)
            #expect(!decoded.isEmpty)
            #expect(!admirers.contains { decoded.lowercased().contains($0.lowercased()) }, "a page token names a liker: \(decoded)")
        }
    }

    /// FirstDate: a viewer who gave a neighborhood but no location is placed at the middle of
    /// that neighborhood's members, so the radius and distances still apply.
    @Test func viewerWithoutLocation_isPlacedAtTheirNeighborhoodsCentroid() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = Self.spot()
        let neighborhood = "Brickell " + TestDatabase.uniqueName("n").suffix(8)
        let west = try await members.join("firstdate", location: (here.0, here.1 - 0.02), neighborhood: neighborhood)
        let east = try await members.join("firstdate", location: (here.0, here.1 + 0.02), neighborhood: neighborhood)
        let far = try await members.join("firstdate", location: (here.0 + 3, here.1))
        let viewer = try await members.join("firstdate", neighborhood: neighborhood)
        let cards = try await members.feed(of: viewer)
        let ids = cards.map(\.accountID)
        #expect(ids.contains(west.id) && ids.contains(east.id))
        #expect(!ids.contains(far.id))
        // Both are about 0.02° of longitude from the centroid between them, and their grid points
        // up to 0.025°.
        for card in cards where card.accountID == west.id || card.accountID == east.id {
            #expect([1000, 2000, 3000].contains(card.distanceMeters))
        }
    }
}
