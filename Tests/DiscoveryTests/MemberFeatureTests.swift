import Contracts
import Foundation
import RPC
import TestSupport
import Testing

/// FirstDate's quiz swipes and taste profile, ÉLITE's incognito and boosts, over the wire.
@Suite(.serialized, .discoveryServices) struct MemberFeatureTests {
    @Test func firstDateViewers_swipeAsAQuiz_neverMatch_andLearnTheirTastes() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let ana = try await members.join("firstdate", tags: ["salsa"], cuisines: ["cuban"])
        let ben = try await members.join("firstdate", tags: ["jazz", "sailing"], cuisines: ["sushi", "thai"])
        let cai = try await members.join("firstdate", tags: ["jazz"], cuisines: ["pizza"])
        let first = try await members.swipe(ana, .like, on: ben)
        #expect(first.quiz)
        let back = try await members.swipe(ben, .like, on: ana)
        #expect(back.quiz)
        #expect(back.match == nil, "FirstDate viewers' swipes matched")
        #expect(try await members.discovery.listMatches(.init(), options: ana.bearer).matches.isEmpty)
        _ = try await members.swipe(ana, .pass, on: cai)
        let taste = try await members.discovery.getTasteProfile(.init(), options: ana.bearer)
        #expect(taste.likes == 1)
        #expect(taste.passes == 1)
        // Most liked first, then the least passed.
        #expect(taste.tags == [Discovery.TasteCount(name: "sailing", liked: 1, passed: 0),
                               Discovery.TasteCount(name: "jazz", liked: 1, passed: 1)])
        #expect(Set(taste.cuisines.map(\.name)) == ["sushi", "thai", "pizza"])
    }

    @Test func incognito_needsTheTier_andHidesTheMemberFromThoseTheyHaveNotLiked() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = (Double.random(in: -50...50), Double.random(in: -170...170))
        let free = try await members.join("elite", location: here)
        let failure = await reason { _ = try await members.discovery.updateSettings(.init(incognito: true), options: free.bearer) }
        #expect(failure?.code == .permissionDenied)
        #expect(failure?.reason == "TIER_REQUIRED")

        let black = try await members.grantTier("black", to: try await members.join("elite", location: here))
        let settings = try await members.discovery.updateSettings(.init(incognito: true), options: black.bearer)
        #expect(settings.incognito)
        let viewer = try await members.join("elite", location: (here.0 + 0.01, here.1))
        #expect(try await !members.feed(of: viewer).map(\.accountID).contains(black.id))
        _ = try await members.swipe(black, .like, on: viewer)
        #expect(try await members.feed(of: viewer).map(\.accountID).contains(black.id))
    }

    @Test func boost_ranksTheMemberFirst_andSpendsOneOfTheMonth() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = (Double.random(in: -50...50), Double.random(in: -170...170))
        // Three shared tags (300) outrank a tier with priority (200) until the boost (1000).
        let viewer = try await members.join("elite", tags: ["jazz", "wine", "salsa"], location: here)
        let sharesTags = try await members.join("elite", tags: ["jazz", "wine", "salsa"], location: here)
        let black = try await members.grantTier("black", to: try await members.join("elite", location: here))
        #expect(try await members.feed(of: viewer).map(\.accountID).first == sharesTags.id)
        let before = try await members.discovery.getSettings(.init(), options: black.bearer)
        let boosted = try await members.discovery.boost(.init(), options: black.bearer)
        #expect(boosted.boostedUntil != nil)
        #expect(boosted.boostsRemaining == before.boostsRemaining - 1)
        let again = try await members.discovery.boost(.init(), options: black.bearer)
        #expect(again.boostsRemaining == boosted.boostsRemaining, "a second call during the boost spent another")
        #expect(try await members.feed(of: viewer).map(\.accountID).first == black.id)
        let failure = await reason { _ = try await members.discovery.boost(.init(), options: viewer.bearer) }
        #expect(failure?.reason == "TIER_REQUIRED")
    }

    /// Two members referred by the same person share a connection: each ranks the other first
    /// and sees the count.
    @Test func referrals_makeConnections_andMutualConnectionsRankFirst() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = (Double.random(in: -50...50), Double.random(in: -170...170))
        let referrer = try await members.makeAdmin(of: "elite")
        let membership = MembershipClient(client: members.identity.client)
        let first = try await membership.createReferralCode(.init(), options: referrer.bearer)
        let second = try await membership.createReferralCode(.init(), options: referrer.bearer)
        let viewer = try await members.join("elite", tags: ["jazz", "wine", "salsa"], location: here, referralCode: first.code)
        let friendOfFriend = try await members.join("elite", location: here, referralCode: second.code)
        let sharesTags = try await members.join("elite", tags: ["jazz", "wine", "salsa"], location: here)
        try await members.waitForDiscoveryToCatchUp()
        let cards = try await members.feed(of: viewer)
        #expect(cards.map(\.accountID).prefix(2) == [friendOfFriend.id, sharesTags.id])
        #expect(cards.first?.mutualConnections == 1)
        #expect(cards.dropFirst().first?.mutualConnections == 0)
    }
}
