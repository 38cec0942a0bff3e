import Contracts
import CryptoCore
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

    @Test func importedContacts_connectMembers_byHashOnly_andRankMutualConnections() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = (Double.random(in: -50...50), Double.random(in: -170...170))
        let viewer = try await members.join("elite", location: here)
        let friend = try await members.join("elite", location: here)
        let stranger = try await members.join("elite", location: here)
        let elsewhere = try await members.join("firstdate", location: here)
        func hash(_ text: String) -> String {
            SHA256Digest.hash(Array(text.utf8)).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
                .joined()
        }
        func emailHash(of member: Member) async throws -> String {
            let email = try await members.admin.withConnection { connection in
                try await connection.query("SELECT email FROM identity.email_credentials WHERE account_id = $1::uuid",
                                           [.text(member.id)])[0].decode(0, as: String.self)
            }
            return hash(email.lowercased())
        }
        let nobody = hash("nobody-\(UUID().uuidString)@example.com")
        // The viewer's address book: the friend, a non-member, someone of another app, and themself.
        let book = [try await emailHash(of: friend), nobody, try await emailHash(of: elsewhere), try await emailHash(of: viewer)]
        var imported = try await members.discovery.importContacts(.init(hashes: book), options: viewer.bearer)
        #expect(imported.matched == 1 && imported.connectionsAdded == 1)
        imported = try await members.discovery.importContacts(.init(hashes: book), options: viewer.bearer)
        #expect(imported.matched == 1 && imported.connectionsAdded == 0, "importing again adds nothing")
        // The stranger knows the friend too: the viewer and the stranger now share a connection.
        _ = try await members.discovery.importContacts(.init(hashes: [try await emailHash(of: friend)]), options: stranger.bearer)
        let cards = try await members.feed(of: viewer)
        #expect(cards.first { $0.accountID == stranger.id }?.mutualConnections == 1)
        #expect(cards.first { $0.accountID == friend.id }?.mutualConnections == 0)
        #expect(cards.first?.accountID == stranger.id, "a mutual connection ranks first")

        // Someone who blocked the viewer, and someone the viewer blocked, are as unknown as a
        // non-member: an import never confirms that a blocked person's number is a member's.
        let blocker = try await members.join("elite", location: here)
        let blocked = try await members.join("elite", location: here)
        _ = try await members.safety.block(.init(accountID: viewer.id), options: blocker.bearer)
        _ = try await members.safety.block(.init(accountID: blocked.id), options: viewer.bearer)
        try await members.waitForDiscoveryToCatchUp()
        imported = try await members.discovery.importContacts(
            .init(hashes: [try await emailHash(of: blocker), try await emailHash(of: blocked)]), options: viewer.bearer)
        #expect(imported.matched == 0 && imported.connectionsAdded == 0)
        imported = try await members.discovery.importContacts(.init(hashes: [try await emailHash(of: viewer)]), options: blocker.bearer)
        #expect(imported.matched == 0)

        for bad in [["not-a-hash"], [String(repeating: "A", count: 64)], Array(repeating: nobody, count: 1_001)] {
            let failure = await reason { _ = try await members.discovery.importContacts(.init(hashes: bad), options: viewer.bearer) }
            #expect(failure?.code == .invalidArgument && failure?.reason == "INVALID_CONTACTS")
        }
        let rows = try await members.admin.withConnection { connection in
            try await connection.query("SELECT count(*)::int8 FROM discovery.connections WHERE account_id = $1::uuid",
                                       [.text(viewer.id)])[0].decode(0, as: Int64.self)
        }
        #expect(rows == 1, "only the member found is kept, none of the address book")
    }
}
