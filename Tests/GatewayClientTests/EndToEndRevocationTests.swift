import Auth
import Contracts
import Foundation
import GatewayClient
import RPC
import TestSupport
import Testing

/// Issue 9: sign-out, refresh-token reuse and account deletion end an access token everywhere
/// at once, and a change of tier or role makes older tokens stale, which the gateway client
/// answers with one refresh. "Everywhere" is the identity executable and `RevocationProbe`, a
/// server of its own that hears of identity only through `GetSigningKeys` and `WatchEvents`.
@Suite(.identityService) struct EndToEndRevocationTests {
    static let credential = { () -> ServiceCredential in
        // Safe: a fixed name and secret that `ServiceCredential` accepts.
        try! ServiceCredential(name: "messaging", secret: IdentityServiceTrait.messagingSecret)
    }()

    /// The reason identity itself gives for `token` on `GetAccount`; nil when it accepts it.
    static func identityRefusal(_ token: String) async throws -> String? {
        let client = RPCClient(host: "127.0.0.1", port: try EndToEnd.identity.port)
        defer { client.close() }
        do {
            _ = try await IdentityClient(client: client).getAccount(options: .bearer(token))
            return nil
        } catch let error as RPCError {
            return error.reason ?? "\(error.code)"
        }
    }

    /// Polls identity until it refuses `token` with `reason`, for up to a second.
    static func identityRefuses(_ token: String, reason: String) async throws -> Bool {
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < .seconds(1) {
            if try await identityRefusal(token) == reason { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func signOut_refusesTheTokenOnIdentityAtOnce_andOnAnotherServiceWithinASecond() async throws {
        let probe = try RevocationProbe.start(identityPort: try EndToEnd.identity.port, credential: Self.credential)
        let users = EndToEndUsers()
        defer { users.close() }
        let user = try await users.signUp("firstdate")
        let token = try #require(try user.client.currentSession()).accessToken
        let before = try await probe.claims(token).get()
        #expect(before.id == user.id && before.app == "firstdate")

        try await user.client.identity.signOut()
        // Identity told its own list before answering.
        #expect(try await Self.identityRefusal(token) == "TOKEN_REVOKED")
        let elapsed = await probe.timeUntilRefused(token, reason: "TOKEN_REVOKED")
        #expect(elapsed != nil, "the other service still accepts a signed-out token after a second")

        // A service started after the sign-out learns it from the replay of the recent past.
        let late = try RevocationProbe.start(identityPort: try EndToEnd.identity.port, credential: Self.credential)
        #expect(await late.timeUntilRefused(token, reason: "TOKEN_REVOKED") != nil)
        // Other accounts are untouched.
        let other = try await users.signUp("firstdate")
        let otherToken = try #require(try other.client.currentSession()).accessToken
        #expect(try await late.claims(otherToken).get().id == other.id)
        await late.stop()
        await probe.stop()
    }

    @Test func signOutEverywhere_revokesEverySessionOfTheAccount() async throws {
        let probe = try RevocationProbe.start(identityPort: try EndToEnd.identity.port, credential: Self.credential)
        let users = EndToEndUsers()
        defer { users.close() }
        let email = EndToEnd.uniqueEmail()
        let phone = try users.signedOut("firstdate")
        _ = try await phone.identity.signUpWithEmail(email, password: EndToEndUsers.password)
        let tablet = try users.signedOut("firstdate")
        _ = try await tablet.identity.signInWithEmail(email, password: EndToEndUsers.password)
        let phoneToken = try #require(try phone.currentSession()).accessToken
        let tabletToken = try #require(try tablet.currentSession()).accessToken
        _ = try await probe.claims(tabletToken).get()

        #expect(try await phone.identity.signOutEverywhere() == 2)
        #expect(await probe.timeUntilRefused(phoneToken, reason: "TOKEN_REVOKED") != nil)
        #expect(await probe.timeUntilRefused(tabletToken, reason: "TOKEN_REVOKED") != nil)
        // The tablet's client refreshes once, is refused, and reports the sign-out.
        let error = await gatewayError { _ = try await tablet.identity.getAccount() }
        #expect(error?.isSignedOut == true)
        await probe.stop()
    }

    @Test func refreshTokenReuse_revokesTheSessionsAccessTokensEverywhere() async throws {
        let probe = try RevocationProbe.start(identityPort: try EndToEnd.identity.port, credential: Self.credential)
        let users = EndToEndUsers()
        defer { users.close() }
        let user = try await users.signUp("firstdate")
        let stolen = try #require(try user.client.currentSession())
        // The owner refreshes; then the thief presents the spent refresh token.
        let current = try await user.client.identity.refreshSession()
        let client = RPCClient(host: "127.0.0.1", port: try EndToEnd.identity.port)
        defer { client.close() }
        let reuse = await gatewayError {
            _ = try await IdentityClient(client: client).refreshSession(.init(refreshToken: stolen.refreshToken))
        }
        #expect(reuse?.reason == "REFRESH_TOKEN_REUSED")
        #expect(try await Self.identityRefusal(current.accessToken) == "TOKEN_REVOKED")
        #expect(await probe.timeUntilRefused(current.accessToken, reason: "TOKEN_REVOKED") != nil)
        #expect(await probe.timeUntilRefused(stolen.accessToken, reason: "TOKEN_REVOKED") != nil)
        await probe.stop()
    }

    @Test func accountDeletion_revokesItsTokensEverywhere() async throws {
        let probe = try RevocationProbe.start(identityPort: try EndToEnd.identity.port, credential: Self.credential)
        let users = EndToEndUsers()
        defer { users.close() }
        let user = try await users.signUp("firstdate")
        let token = try #require(try user.client.currentSession()).accessToken
        _ = try await probe.claims(token).get()
        _ = try await user.client.identity.deleteAccount()
        #expect(await probe.timeUntilRefused(token, reason: "TOKEN_REVOKED") != nil)
        await probe.stop()
    }

    @Test func tierChange_makesOlderTokensStale_andTheClientRefreshesOnceIntoTheNewClaims() async throws {
        let probe = try RevocationProbe.start(identityPort: try EndToEnd.identity.port, credential: Self.credential)
        let users = EndToEndUsers()
        defer { users.close() }
        let member = try await users.signUp("elite")
        let admin = try await users.signUp("elite", role: "admin")
        let old = try #require(try member.client.currentSession()).accessToken
        #expect(try await probe.claims(old).get().tier == "free")

        _ = try await admin.client.membership.setTier(accountID: member.id, tier: "plus")
        #expect(await probe.timeUntilRefused(old, reason: "TOKEN_STALE") != nil)
        #expect(try await Self.identityRefuses(old, reason: "TOKEN_STALE"))

        // The member's next call is refused as stale, refreshed once, and answered.
        #expect(try await member.client.identity.getAccount().tier == "plus")
        let fresh = try #require(try member.client.currentSession()).accessToken
        #expect(fresh != old)
        #expect(try member.tokenClaims().string("tier") == "plus")
        // The new token passes on the other service too, with the new claims.
        #expect(try await probe.claims(fresh).get().tier == "plus")
        await probe.stop()
    }

    @Test func roleChange_makesOlderTokensStale_onEveryService() async throws {
        let probe = try RevocationProbe.start(identityPort: try EndToEnd.identity.port, credential: Self.credential)
        let users = EndToEndUsers()
        defer { users.close() }
        let user = try await users.signUp("firstdate")
        let old = try #require(try user.client.currentSession()).accessToken
        let role = try await probe.claims(old).get().role
        try await EndToEnd.grantRole("host", to: user.id, app: "firstdate")
        #expect(await probe.timeUntilRefused(old, reason: "TOKEN_STALE") != nil)
        // `identity grant-role` is another process: the running identity hears of it through its
        // own outbox, as its sibling instances would.
        #expect(try await Self.identityRefuses(old, reason: "TOKEN_STALE"))
        #expect(try await user.client.identity.getAccount().role == "host")
        let fresh = try #require(try user.client.currentSession()).accessToken
        let claims = try await probe.claims(fresh).get()
        #expect(claims.role == "host" && claims.role != role)
        await probe.stop()
    }
}
