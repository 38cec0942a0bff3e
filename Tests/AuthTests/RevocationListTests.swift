import Auth
import Contracts
import CryptoCore
import Foundation
import RPC
import Testing

/// `RevocationList` on its own (revoked sessions, stale accounts, forgetting after expiry) and
/// behind `AuthInterceptor` on a live server.
@Suite struct RevocationListTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static var nowMs: Int64 { RevocationList.milliseconds(now) }

    static func account(session: String = "s-1", account: String = "a-1", issuedAt: Int64) -> AuthenticatedAccount {
        AuthenticatedAccount(accountID: account, app: "swivo", role: "member", tier: "free", membershipStatus: "active",
                             sessionID: session, issuedAtMilliseconds: issuedAt)
    }

    @Test func revokedSession_isRefused_otherSessionsPass() {
        let list = RevocationList()
        list.revokeSessions(["S-1"], validUntil: Self.nowMs + 900_000, now: Self.now)
        #expect(list.check(Self.account(session: "s-1", issuedAt: Self.nowMs - 1000)) == .revoked)
        #expect(list.check(Self.account(session: "s-2", issuedAt: Self.nowMs - 1000)) == .valid)
    }

    @Test(arguments: [(Int64(-1), RevocationList.Verdict.stale), (0, .valid), (1, .valid), (-60_000, .stale)] as [(Int64, RevocationList.Verdict)])
    func claimsChange_refusesTokensIssuedBeforeIt(offset: Int64, verdict: RevocationList.Verdict) {
        let list = RevocationList()
        list.claimsChanged(accountID: "A-1", notBefore: Self.nowMs, validUntil: Self.nowMs + 900_000, now: Self.now)
        #expect(list.check(Self.account(issuedAt: Self.nowMs + offset)) == verdict)
        #expect(list.check(Self.account(account: "a-2", issuedAt: Self.nowMs + offset)) == .valid)
    }

    @Test func claimsChange_keepsTheLatestInstant_evenWhenEventsArriveOutOfOrder() {
        let list = RevocationList()
        list.claimsChanged(accountID: "a-1", notBefore: Self.nowMs, validUntil: Self.nowMs + 900_000, now: Self.now)
        list.claimsChanged(accountID: "a-1", notBefore: Self.nowMs - 5000, validUntil: Self.nowMs + 895_000, now: Self.now)
        #expect(list.check(Self.account(issuedAt: Self.nowMs - 1)) == .stale)
    }

    @Test func entries_areForgottenOnceTheirTokensHaveExpired_soMemoryStaysBounded() {
        let list = RevocationList(leewaySeconds: 30, sweepInterval: .seconds(10))
        for index in 0..<1000 {
            list.revokeSessions(["s-\(index)"], validUntil: Self.nowMs + 900_000, now: Self.now)
            list.claimsChanged(accountID: "a-\(index)", notBefore: Self.nowMs, validUntil: Self.nowMs + 900_000, now: Self.now)
        }
        #expect(list.count == 2000)
        // Still held within the leeway after `validUntil`: the verifier accepts such tokens.
        list.sweep(now: Self.now.addingTimeInterval(900 + 29))
        #expect(list.count == 2000)
        list.sweep(now: Self.now.addingTimeInterval(900 + 31))
        #expect(list.count == 0)
        // A write sweeps by itself once the interval has passed.
        let soon = Self.now.addingTimeInterval(1000)
        list.revokeSessions(["old"], validUntil: RevocationList.milliseconds(soon) + 1000, now: soon)
        let later = soon.addingTimeInterval(60)
        list.revokeSessions(["new"], validUntil: RevocationList.milliseconds(later) + 900_000, now: later)
        #expect(list.count == 1)
        #expect(list.check(Self.account(session: "new", issuedAt: 0)) == .revoked)
    }

    @Test func eventsAboutAlreadyExpiredTokens_areNotKept() {
        let list = RevocationList()
        list.revokeSessions(["s-1"], validUntil: Self.nowMs - 31_000, now: Self.now)
        list.claimsChanged(accountID: "a-1", notBefore: Self.nowMs - 931_000, validUntil: Self.nowMs - 31_000, now: Self.now)
        #expect(list.count == 0)
    }

    @Test func accessTokenClaims_carryTheIssueTimeInMilliseconds_andFallBackToIat() throws {
        let account = Self.account(issuedAt: 0)
        let exact = AccessTokenClaims(account: account, issuedAt: 1_800_000_000, expiresAt: 1_800_000_900,
                                      issuedAtMilliseconds: 1_800_000_000_734)
        #expect(AccessTokenClaims(exact.jwtClaims)?.account.issuedAtMilliseconds == 1_800_000_000_734)
        let coarse = AccessTokenClaims(account: account, issuedAt: 1_800_000_000, expiresAt: 1_800_000_900)
        #expect(AccessTokenClaims(coarse.jwtClaims)?.account.issuedAtMilliseconds == 1_800_000_000_000)
        // An iat_ms outside iat's second is not believed.
        var forged = exact.jwtClaims
        forged["iat_ms"] = .integer(1_800_000_005_000)
        #expect(AccessTokenClaims(forged)?.account.issuedAtMilliseconds == 1_800_000_000_000)
    }

    // MARK: Behind AuthInterceptor

    struct StaticKeys: SigningKeySource {
        let set: JWKSet
        func fetchKeys() async throws -> (keys: JWKSet, maxAge: Duration) { (set, .seconds(300)) }
    }

    /// Answers with the caller's account id.
    struct Echo: RPCService {
        static let name = "rendezvous.test.v1.RevocationEcho"
        var serviceName: String { Self.name }

        func register(in router: inout RPCRouter) {
            router.unary(serviceName, "Whoami") { (_: GRPCTesting.SimpleRequest, context) in
                var response = GRPCTesting.SimpleResponse()
                response.username = try context.requireAccount().accountID
                return response
            }
        }
    }

    @Test func interceptor_refusesRevokedAndStaleTokens_withTheirReasons() async throws {
        let key = try ECSigningKey.generate(keyID: "k1")
        let keys = try JWKSet(Identity.SigningKeySet(keys: [Identity.SigningKey(key.verifyingKey)]))
        let list = RevocationList()
        let verifier = AccessTokenVerifier(configuration: .init(apps: ["swivo"]), source: StaticKeys(set: keys))
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let server = try RPCServer(configuration: configuration, services: [Echo()],
                                   interceptors: [AuthInterceptor(verifier: verifier, publicMethods: [], revocations: list)])
        try server.start()
        let client = RPCClient(host: "127.0.0.1", port: server.port)
        func call(_ token: String) async -> Result<String, RPCError> {
            do {
                let response = try await client.unary(
                    path: "/\(Echo.name)/Whoami", request: GRPCTesting.SimpleRequest(), as: GRPCTesting.SimpleResponse.self,
                    options: .bearer(token))
                return .success(response.message.username)
            } catch let error as RPCError {
                return .failure(error)
            } catch {
                return .failure(RPCError(code: .unknown, message: "\(error)"))
            }
        }
        let issued = Date()
        let seconds = Int64(issued.timeIntervalSince1970)
        func token(session: String) throws -> String {
            try AccessTokenClaims(account: Self.account(session: session, issuedAt: 0), issuedAt: seconds,
                                  expiresAt: seconds + 900, issuedAtMilliseconds: RevocationList.milliseconds(issued))
                .sign(with: key)
        }
        let first = try token(session: "s-1")
        let second = try token(session: "s-2")
        #expect(try await call(first).get() == "a-1")

        list.revokeSessions(["s-1"], validUntil: RevocationList.milliseconds(issued) + 900_000)
        let revoked = await call(first)
        #expect(revoked.failure?.code == .unauthenticated && revoked.failure?.reason == "TOKEN_REVOKED")
        #expect(try await call(second).get() == "a-1")

        list.claimsChanged(accountID: "a-1", notBefore: RevocationList.milliseconds(issued) + 1,
                           validUntil: RevocationList.milliseconds(issued) + 900_000)
        let stale = await call(second)
        #expect(stale.failure?.code == .unauthenticated && stale.failure?.reason == "TOKEN_STALE")
        client.close()
        await server.shutdown(gracePeriod: .zero)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
