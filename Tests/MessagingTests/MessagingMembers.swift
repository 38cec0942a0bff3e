import Contracts
import Foundation
import Postgres
import RPC
import Runtime
import TestSupport
import Testing

/// One signed-in person: their account and access token.
struct Member: Sendable {
    let id: String
    let app: String
    let token: String
    var refreshToken = ""

    var bearer: CallOptions { .bearer(token, timeout: .seconds(10)) }
}

/// People made through the real identity and discovery (sign-up, profile, tiers, mutual likes),
/// and typed clients of each messaging instance.
struct MessagingMembers: Sendable {
    let identity: IdentityClient
    let safety: SafetyClient
    let discovery: DiscoveryClient
    /// One client per messaging instance, in the stack's order.
    let messaging: [MessagingClient]
    let realtime: [RealtimeClient]
    let admin: PostgresPool

    static func make() async throws -> MessagingMembers {
        let stack = try MessagingHarness.running
        let identity = RPCClient(host: "127.0.0.1", port: stack.identity.port)
        let instances = stack.messaging.map { RPCClient(host: "127.0.0.1", port: $0.port) }
        return MessagingMembers(identity: IdentityClient(client: identity), safety: SafetyClient(client: identity),
                                discovery: DiscoveryClient(client: RPCClient(host: "127.0.0.1", port: stack.discovery.port)),
                                messaging: instances.map(MessagingClient.init), realtime: instances.map(RealtimeClient.init),
                                admin: try await TestDatabase.makeAdminPool())
    }

    func close() {
        identity.client.close()
        discovery.client.close()
        for client in messaging { client.client.close() }
        admin.close()
    }

    /// A new person of `app` (anonymous where the app allows it, else by email) with an active
    /// profile that discovery has seen; admitted first in an invite-only app (`TestAdmission`).
    func join(_ app: String = "swivo", cuisines: [String] = []) async throws -> Member {
        var session: Identity.AuthSession
        if app == "elite" || app == "firstdate" {
            session = try await identity.signUpWithEmail(.init(app: app, email: "\(TestDatabase.uniqueName("msg"))@example.com",
                                                               password: "correct horse battery staple", deviceName: "tests"))
        } else {
            session = try await identity.signInAnonymously(.init(app: app, deviceName: "tests"))
        }
        if session.account?.membershipStatus == "waitlisted" {
            try await TestAdmission.admit(try #require(session.account).id)
            session = try await identity.refreshSession(.init(refreshToken: session.refreshToken))
        }
        let member = Member(id: try #require(session.account).id, app: app, token: session.accessToken,
                            refreshToken: session.refreshToken)
        var fields = Profiles.ProfileFields()
        fields.displayName = "Person \(member.id.prefix(4))"
        fields.bio = "hello"
        fields.active = true
        fields.gender = .female
        fields.birthDate = Profiles.CalendarDate(year: 1990, month: 1, day: 1)
        fields.preferredCuisines = cuisines
        _ = try await ProfilesClient(client: identity.client).updateProfile(
            .init(fields: fields, updateMask: ["display_name", "bio", "active", "gender", "birth_date", "preferred_cuisines"]),
            options: member.bearer)
        try await waitUntil("discovery sees \(member.id)") {
            try await admin.withConnection { connection in
                try await connection.query("SELECT active FROM discovery.profiles WHERE account_id = $1::uuid",
                                           [.text(member.id)]).first?.decode(0, as: Bool.self) == true
            }
        }
        return member
    }

    /// `member` in `tier`, set by a new admin of the app, with a refreshed token carrying it.
    func grantTier(_ tier: String, to member: Member) async throws -> Member {
        let admin = try await join(member.app)
        let result = try await Subprocess.run(
            try RepositoryPaths.builtExecutable("identity"),
            ["grant-role", "--app", member.app, "--account-id", admin.id, "--role", "admin"],
            environment: ["RV_PG_URL_IDENTITY": DiscoveryStack.postgresURL(role: "identity")], timeout: .seconds(60))
        guard result.exitCode == 0 else { throw SubprocessError(message: "identity grant-role: \(result.output)") }
        let adminSession = try await identity.refreshSession(.init(refreshToken: admin.refreshToken))
        _ = try await MembershipClient(client: identity.client).setTier(
            .init(accountID: member.id, tier: tier), options: .bearer(adminSession.accessToken, timeout: .seconds(10)))
        let session = try await identity.refreshSession(.init(refreshToken: member.refreshToken))
        return Member(id: member.id, app: member.app, token: session.accessToken, refreshToken: session.refreshToken)
    }

    /// Makes `a` and `b` match through discovery and waits until messaging has opened their
    /// conversation; returns its id (the match's).
    func match(_ a: Member, _ b: Member) async throws -> String {
        _ = try await discovery.swipe(.init(accountID: b.id, action: .like), options: a.bearer)
        let response = try await discovery.swipe(.init(accountID: a.id, action: .like), options: b.bearer)
        let id = try #require(response.match).matchID
        try await waitUntil("messaging opens \(id)") {
            do {
                _ = try await messaging[0].getConversation(.init(conversationID: id), options: a.bearer)
                return true
            } catch let error as RPCError where error.reason == "CONVERSATION_NOT_FOUND" {
                return false
            }
        }
        return id
    }

    func send(_ text: String, from member: Member, in conversation: String, instance: Int = 0,
              key: String = UUID().uuidString) async throws -> Messaging.SendMessageResponse {
        try await messaging[instance].sendMessage(.init(conversationID: conversation, clientMessageID: key, body: .text(text)),
                                                  options: member.bearer)
    }

    /// Writes into messaging's realtime outbox, for `member`, a MessageReceived whose payload
    /// does not decode (140 bytes of 0xAB: a malformed varint), as a bug or a hand-written row would.
    func appendUndecodableEvent(for member: Member) async throws {
        let realtime = try Outbox(schema: "messaging", stream: "realtime")
        _ = try await admin.withTransaction { connection in
            try await realtime.append(OutboxEvent(type: "MessageReceived", app: member.app, aggregateID: member.id.lowercased(),
                                                  payload: [UInt8](repeating: 0xAB, count: 140)), on: connection)
        }
    }

    /// Waits (up to `timeout`) until `condition` holds; fails the test naming `what` otherwise.
    func waitUntil(_ what: String, timeout: Duration = .seconds(15),
                   _ condition: @Sendable () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw SubprocessError(message: "timed out waiting until \(what)")
    }
}
