import Auth
import Contracts
import CryptoCore
import Foundation
import RPC
import Synchronization
@testable import Identity
import Testing

/// The shared verifier against Identity's tokens: forged, expired, not yet valid, other app;
/// keys fetched over the wire with `GetSigningKeys`.
@Suite struct AccessTokenTests {
    /// Claims like Identity's for `account`, valid from `issuedAt` for 15 minutes.
    static func claims(_ session: Identity.AuthSession, issuedAt: Int64) throws -> AccessTokenClaims {
        let account = try #require(session.account)
        return AccessTokenClaims(
            account: AuthenticatedAccount(accountID: account.id, app: account.app, role: account.role, tier: account.tier,
                                          membershipStatus: account.membershipStatus, sessionID: session.sessionID),
            issuedAt: issuedAt, expiresAt: issuedAt + 900)
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    @Test func getSigningKeys_publishesTheKeyThatSignsTokens() async throws {
        let harness = try await IdentityHarness.start()
        let session = try await harness.client.signInAnonymously(.init(app: "swivo"))
        let set = try await harness.client.getSigningKeys()
        let kid = try JWS.parse(session.accessToken, allowedAlgorithms: [.es256]).keyID
        #expect(set.keys.contains { $0.kid == kid && $0.alg == "ES256" && $0.crv == "P-256" })
        #expect(set.maxAgeSeconds > 0)
        await harness.stop()
    }

    @Test func forgedToken_sameKidOtherKey_isBadSignature_unknownKid_isUnknownKey() async throws {
        let harness = try await IdentityHarness.start()
        let session = try await harness.client.signInAnonymously(.init(app: "swivo"))
        let kid = try #require(try JWS.parse(session.accessToken, allowedAlgorithms: [.es256]).keyID)
        let claims = try Self.claims(session, issuedAt: Self.now)
        let impostor = try claims.sign(with: ECSigningKey.generate(keyID: kid))
        let forged = await rpcError { _ = try await harness.client.getAccount(options: .bearer(impostor)) }
        #expect(forged?.code == .unauthenticated && forged?.reason == "BAD_SIGNATURE")
        let stranger = try claims.sign(with: ECSigningKey.generate(keyID: "someone-else"))
        let unknown = await rpcError { _ = try await harness.client.getAccount(options: .bearer(stranger)) }
        #expect(unknown?.code == .unauthenticated && unknown?.reason == "UNKNOWN_KEY")
        await harness.stop()
    }

    @Test func expiredAndNotYetValidTokens_areRefused() async throws {
        let harness = try await IdentityHarness.start()
        let session = try await harness.client.signInAnonymously(.init(app: "swivo"))
        let key = try harness.identity.ring.signingKey()
        let expired = try Self.claims(session, issuedAt: Self.now - 3600).sign(with: key)
        let expiredError = await rpcError { _ = try await harness.client.getAccount(options: .bearer(expired)) }
        #expect(expiredError?.code == .unauthenticated && expiredError?.reason == "TOKEN_EXPIRED")
        let future = try Self.claims(session, issuedAt: Self.now + 3600).sign(with: key)
        let futureError = await rpcError { _ = try await harness.client.getAccount(options: .bearer(future)) }
        #expect(futureError?.code == .unauthenticated && futureError?.reason == "TOKEN_NOT_YET_VALID")
        // The same claims, signed properly and valid now, pass.
        let valid = try Self.claims(session, issuedAt: Self.now).sign(with: key)
        _ = try await harness.client.getAccount(options: .bearer(valid))
        await harness.stop()
    }

    @Test func serviceForOneApp_refusesAnotherAppsToken_overTheWire() async throws {
        let harness = try await IdentityHarness.start()
        let swivo = try await harness.client.signInAnonymously(.init(app: "swivo"))
        let unseen = try await harness.client.signInAnonymously(.init(app: "unseen"))
        let verifier = AccessTokenVerifier(configuration: .init(apps: ["unseen"]),
                                           source: IdentitySigningKeySource(client: harness.client))
        let probe = try RPCServer(configuration: RPCServerConfiguration(), services: [WhoAmIService()],
                                  interceptors: [AuthInterceptor(verifier: verifier, publicMethods: [])])
        try probe.start()
        let client = RPCClient(host: "127.0.0.1", port: probe.port)
        let me = try await client.unary(path: WhoAmIService.path, request: Identity.GetAccountRequest(),
                                        as: Identity.Account.self, options: .bearer(unseen.accessToken)).message
        #expect(me.id == unseen.account?.id && me.app == "unseen")
        let wrongApp = await rpcError {
            _ = try await client.unary(path: WhoAmIService.path, request: Identity.GetAccountRequest(),
                                       as: Identity.Account.self, options: .bearer(swivo.accessToken))
        }
        #expect(wrongApp?.code == .unauthenticated && wrongApp?.reason == "WRONG_APP")
        client.close()
        await probe.shutdown(gracePeriod: .milliseconds(100))
        await harness.stop()
    }

    /// A verifier for any app (production's: its handlers answer an app they do not serve with
    /// PERMISSION_DENIED) takes every app's token, but still only one whose audience is its app.
    @Test func verifierForAnyApp_acceptsEveryAppsToken_whoseAudienceNamesItsApp() async throws {
        let key = try ECSigningKey.generate(keyID: "any")
        let verifier = AccessTokenVerifier(configuration: .init(apps: nil), source: CountingSource(keys: [key]))
        for app in ["swivo", "momento", "elite"] {
            let claims = AccessTokenClaims(account: AuthenticatedAccount(accountID: "a", app: app, role: "member", tier: "free",
                                                                        membershipStatus: "active", sessionID: "s"),
                                           issuedAt: Self.now, expiresAt: Self.now + 900)
            #expect(try await verifier.verify(claims.sign(with: key)).app == app)
            var mismatched = claims.jwtClaims
            mismatched.values["aud"] = .string("unseen")
            let forged = try JWS.sign(header: ["typ": .string(AccessTokenClaims.type)], payload: mismatched.serialized(), key: key)
            await #expect(throws: AuthFailure(.wrongApp)) { _ = try await verifier.verify(forged) }
            mismatched.values["aud"] = nil
            let noAudience = try JWS.sign(header: ["typ": .string(AccessTokenClaims.type)], payload: mismatched.serialized(), key: key)
            await #expect(throws: AuthFailure.self) { _ = try await verifier.verify(noAudience) }
        }
    }

    @Test func verifier_refetchesOnUnknownKid_atMostOncePerInterval() async throws {
        let first = try ECSigningKey.generate(keyID: "first")
        let second = try ECSigningKey.generate(keyID: "second")
        let source = CountingSource(keys: [first])
        let verifier = AccessTokenVerifier(configuration: .init(apps: ["swivo"]), source: source)
        let claims = AccessTokenClaims(account: AuthenticatedAccount(accountID: "a", app: "swivo", role: "member", tier: "free",
                                                                    membershipStatus: "active", sessionID: "s"),
                                       issuedAt: Self.now, expiresAt: Self.now + 900)
        _ = try await verifier.verify(claims.sign(with: first))
        #expect(source.fetches == 1)
        source.setKeys([first, second])
        // Within the minimum interval: no refetch, so the new kid is unknown.
        await #expect(throws: AuthFailure(.unknownKey)) { _ = try await verifier.verify(claims.sign(with: second)) }
        #expect(source.fetches == 1)
        var configuration = AccessTokenVerifier.Configuration(apps: ["swivo"])
        configuration.minimumRefreshInterval = .zero
        let eager = AccessTokenVerifier(configuration: configuration, source: source)
        _ = try await eager.verify(claims.sign(with: first))
        source.setKeys([first, second])
        let account = try await eager.verify(claims.sign(with: second))
        #expect(account.accountID == "a")
    }
}

/// Answers with the caller's account id and app, as the interceptor put them in the context.
struct WhoAmIService: RPCService {
    static let path = "/probe.Probe/WhoAmI"
    var serviceName: String { "probe.Probe" }

    func register(in router: inout RPCRouter) {
        router.unary(serviceName, "WhoAmI") { (_: Identity.GetAccountRequest, context) in
            let caller = try context.requireAccount()
            var account = Identity.Account()
            account.id = caller.accountID
            account.app = caller.app
            return account
        }
    }
}

/// A key source that counts fetches.
final class CountingSource: SigningKeySource, Sendable {
    private let state: Mutex<(keys: [ECSigningKey], fetches: Int)>

    init(keys: [ECSigningKey]) { state = Mutex((keys, 0)) }

    var fetches: Int { state.withLock { $0.fetches } }

    func setKeys(_ keys: [ECSigningKey]) { state.withLock { $0.keys = keys } }

    func fetchKeys() async throws -> (keys: JWKSet, maxAge: Duration) {
        let keys = state.withLock { state in
            state.fetches += 1
            return state.keys
        }
        return (try JWKSet(signingKeys: keys), .seconds(300))
    }
}
