import Contracts
import Foundation
import Postgres
import RPC
import TestSupport
import Testing

/// One signed-in person: their account and access token, and typed calls as them.
struct Member: Sendable {
    let id: String
    let app: String
    let token: String
    var refreshToken = ""

    var bearer: CallOptions { .bearer(token, timeout: .seconds(10)) }
}

/// Signs people up through identity and writes their profiles, then waits until discovery's
/// projection has them (it follows identity's events).
struct DiscoveryMembers: Sendable {
    let identity: IdentityClient
    let profiles: ProfilesClient
    let safety: SafetyClient
    let discovery: DiscoveryClient
    let admin: PostgresPool

    static func make() async throws -> DiscoveryMembers {
        let identity = RPCClient(host: "127.0.0.1", port: try DiscoveryHarness.identityPort)
        let discovery = RPCClient(host: "127.0.0.1", port: try DiscoveryHarness.discoveryPort)
        return DiscoveryMembers(identity: IdentityClient(client: identity), profiles: ProfilesClient(client: identity),
                                safety: SafetyClient(client: identity), discovery: DiscoveryClient(client: discovery),
                                admin: try await TestDatabase.makeAdminPool())
    }

    func close() {
        identity.client.close()
        discovery.client.close()
        admin.close()
    }

    /// A new person of `app` (an anonymous device account where the app offers one, else an
    /// email account) with a saved profile: `tags`, `location` (latitude, longitude), born
    /// `age` years ago, `active`. In an invite-only app (ÉLITE) the account is admitted first
    /// unless `admitted` is false (`TestAdmission`).
    func join(_ app: String, tags: [String] = [], location: (Double, Double)? = nil, age: Int32 = 30,
              gender: Profiles.Gender = .female, cuisines: [String] = [], active: Bool = true,
              referralCode: String = "", neighborhood: String = "", admitted: Bool = true) async throws -> Member {
        var session: Identity.AuthSession
        if app == "elite" || app == "firstdate" {
            session = try await identity.signUpWithEmail(.init(app: app, email: "\(TestDatabase.uniqueName("disc"))@example.com",
                                                               password: "correct horse battery staple", deviceName: "tests",
                                                               referralCode: referralCode))
        } else {
            session = try await identity.signInAnonymously(.init(app: app, deviceName: "tests"))
        }
        if admitted, session.account?.membershipStatus == "waitlisted" {
            try await TestAdmission.admit(try #require(session.account).id)
            session = try await identity.refreshSession(.init(refreshToken: session.refreshToken))
        }
        let member = Member(id: try #require(session.account).id, app: app, token: session.accessToken,
                            refreshToken: session.refreshToken)
        var fields = Profiles.ProfileFields()
        fields.displayName = "Person \(member.id.prefix(4))"
        fields.bio = "hello"
        fields.tags = tags
        fields.preferredCuisines = cuisines
        fields.gender = gender
        fields.active = active
        let year = Int32(Calendar(identifier: .gregorian).component(.year, from: Date())) - age
        fields.birthDate = Profiles.CalendarDate(year: year, month: 1, day: 1)
        if let (latitude, longitude) = location { fields.location = Profiles.GeoPoint(latitude: latitude, longitude: longitude) }
        var mask = ["display_name", "bio", "tags", "preferred_cuisines", "gender", "active", "birth_date"]
        if location != nil { mask.append("location") }
        if !neighborhood.isEmpty {
            fields.neighborhood = neighborhood
            mask.append("neighborhood")
        }
        _ = try await profiles.updateProfile(.init(fields: fields, updateMask: mask), options: member.bearer)
        try await waitForProjection(of: member.id) { row in try row.decode(0, as: Bool.self) == active }
        return member
    }

    /// `member` in `tier`, set by an admin of the app (made the way an operator makes the first
    /// one, `identity grant-role`), with a refreshed token carrying the new tier.
    func grantTier(_ tier: String, to member: Member) async throws -> Member {
        let admin = try await makeAdmin(of: member.app)
        _ = try await MembershipClient(client: identity.client).setTier(.init(accountID: member.id, tier: tier),
                                                                         options: admin.bearer)
        let session = try await identity.refreshSession(.init(refreshToken: member.refreshToken))
        return Member(id: member.id, app: member.app, token: session.accessToken, refreshToken: session.refreshToken)
    }

    /// A new admin of `app`, made the way an operator makes the first one (`identity grant-role`),
    /// with a token carrying the role.
    func makeAdmin(of app: String, location: (Double, Double)? = nil) async throws -> Member {
        let admin = try await join(app, location: location)
        let result = try await Subprocess.run(
            try RepositoryPaths.builtExecutable("identity"),
            ["grant-role", "--app", app, "--account-id", admin.id, "--role", "admin"],
            environment: ["RV_PG_URL_IDENTITY": DiscoveryStack.postgresURL(role: "identity")], timeout: .seconds(60))
        guard result.exitCode == 0 else { throw SubprocessError(message: "identity grant-role: \(result.output)") }
        let session = try await identity.refreshSession(.init(refreshToken: admin.refreshToken))
        return Member(id: admin.id, app: app, token: session.accessToken, refreshToken: session.refreshToken)
    }

    /// Waits (up to 15 s) until discovery's copy of `account` satisfies `condition` (given the
    /// row `active, tier`); fails the test when it never does.
    func waitForProjection(of account: String, timeout: Duration = .seconds(15),
                           _ condition: @Sendable (PostgresRow) throws -> Bool = { _ in true }) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let rows = try await admin.withConnection { connection in
                try await connection.query("SELECT active, tier FROM discovery.profiles WHERE account_id = $1::uuid",
                                           [.text(account)])
            }
            if let row = rows.first, try condition(row) { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        Issue.record("discovery never saw the expected profile of \(account)")
    }

    /// Waits until discovery has applied every identity event committed so far.
    func waitForDiscoveryToCatchUp(timeout: Duration = .seconds(15)) async throws {
        let deadline = ContinuousClock.now + timeout
        let end = try await admin.withConnection { connection in
            try await connection.query("SELECT coalesce(max(cursor), 0) FROM identity.outbox")[0].decode(0, as: Int64.self)
        }
        while ContinuousClock.now < deadline {
            let cursor = try await admin.withConnection { connection in
                try await connection.query("SELECT coalesce(max(cursor), 0) FROM discovery.event_cursors WHERE source = 'identity'")[0]
                    .decode(0, as: Int64.self)
            }
            if cursor >= end { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        Issue.record("discovery did not catch up with identity's events")
    }

    /// Every card of `member`'s feed, page by page.
    func feed(of member: Member, pageSize: Int32 = 50, filters: Discovery.FeedFilters? = nil) async throws -> [Discovery.Card] {
        var cards: [Discovery.Card] = []
        var token = ""
        repeat {
            let page = try await discovery.getFeed(.init(pageSize: pageSize, pageToken: token, filters: filters), options: member.bearer)
            cards += page.cards
            token = page.nextPageToken
        } while !token.isEmpty
        return cards
    }

    /// Replaces `member`'s tags, then waits until discovery has applied the change.
    func retag(_ member: Member, _ tags: [String]) async throws {
        var fields = Profiles.ProfileFields()
        fields.tags = tags
        _ = try await profiles.updateProfile(.init(fields: fields, updateMask: ["tags"]), options: member.bearer)
        try await waitForDiscoveryToCatchUp()
    }

    func swipe(_ member: Member, _ action: Discovery.SwipeAction, on other: Member) async throws -> Discovery.SwipeResponse {
        try await discovery.swipe(.init(accountID: other.id, action: action), options: member.bearer)
    }
}
