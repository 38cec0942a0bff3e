import Auth
import Contracts
import CryptoCore
import Foundation
import RPC
import Testing

/// The `adm` claim and `AuthInterceptor`'s admission gate: an account its app has not admitted
/// (ÉLITE: waitlisted, rejected) reaches only the methods open before admission.
@Suite struct AdmissionGateTests {
    static func account(admitted: Bool) -> AuthenticatedAccount {
        AuthenticatedAccount(accountID: "a-1", app: "elite", role: "member", tier: "free",
                             membershipStatus: admitted ? "active" : "waitlisted", sessionID: "s-1", admitted: admitted)
    }

    @Test func adm_isWrittenOnlyWhenNotAdmitted_andItsAbsenceMeansAdmitted() throws {
        let admitted = AccessTokenClaims(account: Self.account(admitted: true), issuedAt: 1_800_000_000, expiresAt: 1_800_000_900)
        #expect(admitted.jwtClaims["adm"] == nil)
        #expect(AccessTokenClaims(admitted.jwtClaims)?.account.admitted == true)
        let waiting = AccessTokenClaims(account: Self.account(admitted: false), issuedAt: 1_800_000_000, expiresAt: 1_800_000_900)
        #expect(waiting.jwtClaims["adm"] == .bool(false))
        #expect(AccessTokenClaims(waiting.jwtClaims)?.account.admitted == false)
    }

    @Test func interceptor_refusesAnAccountNotAdmitted_withNotAdmitted_butOnItsOpenMethods() async throws {
        let key = try ECSigningKey.generate(keyID: "k1")
        let keys = try JWKSet(Identity.SigningKeySet(keys: [Identity.SigningKey(key.verifyingKey)]))
        let verifier = AccessTokenVerifier(configuration: .init(apps: ["elite"]),
                                           source: RevocationListTests.StaticKeys(set: keys))
        let whoami = "/\(RevocationListTests.Echo.name)/Whoami"
        let seconds = Int64(Date().timeIntervalSince1970)
        func token(admitted: Bool) throws -> String {
            try AccessTokenClaims(account: Self.account(admitted: admitted), issuedAt: seconds, expiresAt: seconds + 900)
                .sign(with: key)
        }
        for open in [Set<String>(), [whoami]] {
            var configuration = RPCServerConfiguration()
            configuration.loopCount = 1
            let server = try RPCServer(configuration: configuration, services: [RevocationListTests.Echo()],
                                       interceptors: [AuthInterceptor(verifier: verifier, publicMethods: [],
                                                                      openBeforeAdmission: open)])
            try server.start()
            let client = RPCClient(host: "127.0.0.1", port: server.port)
            func call(_ token: String) async -> Result<String, RPCError> {
                do {
                    let response = try await client.unary(path: whoami, request: GRPCTesting.SimpleRequest(),
                                                           as: GRPCTesting.SimpleResponse.self, options: .bearer(token))
                    return .success(response.message.username)
                } catch let error as RPCError {
                    return .failure(error)
                } catch {
                    return .failure(RPCError(code: .unknown, message: "\(error)"))
                }
            }
            #expect(try await call(token(admitted: true)).get() == "a-1")
            let waiting = await call(try token(admitted: false))
            if open.isEmpty {
                #expect(waiting.failure?.code == .permissionDenied && waiting.failure?.reason == "NOT_ADMITTED")
            } else {
                #expect(try waiting.get() == "a-1")
            }
            client.close()
            await server.shutdown(gracePeriod: .zero)
        }
    }
}
