import Contracts
import CryptoCore
import Foundation
import GatewayClient
import GatewayClientHTTP2
import TestSupport
import Testing

/// ÉLITE's invitation gate everywhere (issue 25, item 3): nobody uses the app before the
/// committee admits them. A waitlisted and a rejected account with profiles are no one's card,
/// no one's swipe target and nobody's profile to read, and may use none of discovery and
/// messaging themselves; once approved, the same account appears and acts. Through the edge to
/// the real identity, discovery and messaging executables, with the gateway client.
@Suite(.serialized) struct EndToEndAdmissionTests {
    /// One person of the test: their client and account id.
    struct Person {
        let client: GatewayClient
        let id: String
    }

    static func withStack(_ body: (DiscoveryStack) async throws -> Void) async throws {
        let stack = try await DiscoveryStack.start(withEdge: true, messagingInstances: 1)
        do {
            try await body(stack)
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// A new email account of `app` (ÉLITE: waitlisted), approved by `admittedBy` when given
    /// (then refreshed), with an active profile at `spot`.
    static func person(_ stack: DiscoveryStack, app: String = "elite", at spot: Profiles.GeoPoint,
                       admittedBy admin: Person? = nil) async throws -> Person {
        let client = try EndToEndDiscoveryTests.client(stack, app: app)
        let account = try await client.identity.signUpWithEmail("\(TestDatabase.uniqueName("gate"))@example.com",
                                                               password: EndToEndUsers.password)
        if let admin {
            _ = try await admin.client.membership.approveMember(accountID: account.id)
            _ = try await client.identity.refreshSession()
        }
        var fields = Profiles.ProfileFields()
        fields.displayName = "Person \(account.id.prefix(4))"
        fields.bio = "hello"
        fields.active = true
        fields.location = spot
        _ = try await client.profiles.updateProfile(fields, mask: ["display_name", "bio", "active", "location"])
        return Person(client: client, id: account.id)
    }

    /// An admin of ÉLITE (the committee), made as an operator makes the first one.
    static func committee(_ stack: DiscoveryStack) async throws -> Person {
        let client = try EndToEndDiscoveryTests.client(stack, app: "elite")
        let account = try await client.identity.signUpWithEmail("\(TestDatabase.uniqueName("gate"))@example.com",
                                                               password: EndToEndUsers.password)
        let grant = try await Subprocess.run(
            try RepositoryPaths.builtExecutable("identity"),
            ["grant-role", "--app", "elite", "--account-id", account.id, "--role", "admin"],
            environment: ["RV_PG_URL_IDENTITY": DiscoveryStack.postgresURL(role: "identity")], timeout: .seconds(60))
        try #require(grant.exitCode == 0, "\(grant.output)")
        _ = try await client.identity.refreshSession()
        return Person(client: client, id: account.id)
    }

    /// A spot of this test alone: the feed's 50 km keeps other tests' members out.
    static func randomSpot() -> Profiles.GeoPoint {
        Profiles.GeoPoint(latitude: Double.random(in: -60...60), longitude: Double.random(in: -179...179))
    }

    /// The account ids of `person`'s feed once `condition` holds of them (15 s at most).
    static func feed(of person: Person, until what: String, _ condition: @escaping (Set<String>) -> Bool) async throws
        -> Set<String> {
        var ids = Set<String>()
        try await EndToEndDiscoveryTests.until(what) {
            ids = Set(try await person.client.discovery.feed(pageSize: 50).cards.map(\.accountID))
            return condition(ids)
        }
        return ids
    }

    @Test func elite_waitlistedAndRejected_areKeptOutOfEveryService_untilTheCommitteeAdmitsThem() async throws {
        try await Self.withStack { stack in
            let spot = Self.randomSpot()
            let admin = try await Self.committee(stack)
            let member = try await Self.person(stack, at: spot, admittedBy: admin)
            let waiting = try await Self.person(stack, at: spot)
            let rejected = try await Self.person(stack, at: spot)
            _ = try await admin.client.membership.rejectMember(accountID: rejected.id, reason: "Incomplete profile")
            // The last one in: once the member's feed shows them, discovery has applied the
            // events of everyone before.
            let last = try await Self.person(stack, at: spot, admittedBy: admin)
            defer { [admin, member, waiting, rejected, last].forEach { $0.client.close() } }

            // An admitted member's feed never shows them, and swiping on them finds no one.
            let cards = try await Self.feed(of: member, until: "the last admitted member in the feed") { $0.contains(last.id) }
            #expect(!cards.contains(waiting.id), "a waitlisted account is a card")
            #expect(!cards.contains(rejected.id), "a rejected account is a card")
            for outsider in [waiting, rejected] {
                let swipe = await gatewayError { _ = try await member.client.discovery.swipe(accountID: outsider.id, .like) }
                expectFailure(swipe, .notFound, "USER_NOT_FOUND")
                // Nor does identity show their profile to a member; the committee sees it.
                let profile = await gatewayError { _ = try await member.client.profiles.getProfile(accountID: outsider.id) }
                expectFailure(profile, .notFound, "USER_NOT_FOUND")
                #expect(try await admin.client.profiles.getProfile(accountID: outsider.id).notAdmitted)
            }

            // They themselves may use none of discovery and messaging...
            for outsider in [waiting, rejected] {
                let feed = await gatewayError { _ = try await outsider.client.discovery.feed() }
                expectFailure(feed, .permissionDenied, "NOT_ADMITTED")
                let swipe = await gatewayError { _ = try await outsider.client.discovery.swipe(accountID: member.id, .like) }
                expectFailure(swipe, .permissionDenied, "NOT_ADMITTED")
                let send = await gatewayError { _ = try await outsider.client.messaging.send(text: "hi", in: UUID().uuidString) }
                expectFailure(send, .permissionDenied, "NOT_ADMITTED")
                let profile = await gatewayError { _ = try await outsider.client.profiles.getProfile(accountID: member.id) }
                expectFailure(profile, .permissionDenied, "NOT_ADMITTED")
                // ...but what they need to get admitted: their own profile and account.
                #expect(try await outsider.client.profiles.getMyProfile().notAdmitted)
                #expect(try await outsider.client.identity.getAccount().id == outsider.id)
            }
            #expect(try await waiting.client.membership.getMyWaitlistPosition().position >= 1)

            // Approved, the waitlisted account appears, is swiped on, browses, swipes and chats.
            _ = try await admin.client.membership.approveMember(accountID: waiting.id)
            _ = try await waiting.client.identity.refreshSession()
            #expect(try await !waiting.client.profiles.getMyProfile().notAdmitted)
            _ = try await Self.feed(of: member, until: "the approved account in the member's feed") { $0.contains(waiting.id) }
            #expect(try await !member.client.profiles.getProfile(accountID: waiting.id).notAdmitted)
            #expect(try await member.client.discovery.swipe(accountID: waiting.id, .like).match == nil)
            let theirs = try await Self.feed(of: waiting, until: "the member in the approved account's feed") { $0.contains(member.id) }
            #expect(!theirs.contains(rejected.id))
            let match = try #require(try await waiting.client.discovery.swipe(accountID: member.id, .like).match)
            try await EndToEndDiscoveryTests.until("the conversation to open for a message") {
                do {
                    return try await waiting.client.messaging.send(text: "Hello!", in: match.matchID).message != nil
                } catch let error as GatewayError where error.messagingReason == .conversationNotFound {
                    return false
                }
            }
            // The rejected one stays out.
            let stillOut = await gatewayError { _ = try await rejected.client.discovery.feed() }
            expectFailure(stillOut, .permissionDenied, "NOT_ADMITTED")
        }
    }

    /// Apps that admit everyone are untouched: FirstDate's new accounts see each other, swipe
    /// and read each other's profiles, and their tokens carry no admission claim.
    @Test func otherApps_admitEveryone() async throws {
        try await Self.withStack { stack in
            let spot = Self.randomSpot()
            let ana = try await Self.person(stack, app: "firstdate", at: spot)
            let ben = try await Self.person(stack, app: "firstdate", at: spot)
            defer { [ana, ben].forEach { $0.client.close() } }
            _ = try await Self.feed(of: ana, until: "ben in ana's feed") { $0.contains(ben.id) }
            _ = try await ana.client.discovery.swipe(accountID: ben.id, .like)
            #expect(try await !ben.client.profiles.getProfile(accountID: ana.id).notAdmitted)
            let token = try #require(try ana.client.currentSession()).accessToken
            let claims = try JWTClaims(payload: Base64URL.decode(String(token.split(separator: ".")[1])))
            #expect(claims["adm"] == nil)
        }
    }
}
