import Contracts
import Foundation
import GatewayClient
import Testing

/// Sign in with Apple and Google against the identity executable, through GatewayClient, with
/// ID tokens the test signs as the provider would (the executable trusts the test's keys):
/// the account a provider identity creates and finds again, and the tokens it refuses.
@Suite(.identityService, .timeLimit(.minutes(2)))
struct EndToEndProviderSignInTests {
    static var tokens: ProviderTokens { .shared }

    @Test func appleSignIn_createsTheAccount_andTheSameAppleIDFindsItOnAnotherDevice() async throws {
        let subject = ProviderTokens.uniqueSubject()
        let email = EndToEnd.uniqueEmail()
        let phone = try EndToEnd.client(app: "firstdate", deviceName: "phone")
        let tablet = try EndToEnd.client(app: "firstdate", deviceName: "tablet")
        defer { phone.close(); tablet.close() }

        let firstNonce = ProviderNonce()
        let created = try await phone.identity.signInWithProvider(
            .apple, idToken: try Self.tokens.rs256(ProviderTokens.apple(subject: subject, app: "firstdate", nonce: firstNonce, email: email)),
            rawNonce: firstNonce.raw)
        #expect(created.signInMethods == ["apple"])
        #expect(created.email == email && !created.anonymous && created.app == "firstdate")
        #expect(try phone.currentSession()?.accountID == created.id)
        #expect(try await phone.identity.getAccount().id == created.id)

        // Apple gives the email only on the first sign-in; later tokens carry the subject alone.
        let secondNonce = ProviderNonce()
        let again = try await tablet.identity.signInWithProvider(
            .apple, idToken: try Self.tokens.es256(ProviderTokens.apple(subject: subject, app: "firstdate", nonce: secondNonce)),
            rawNonce: secondNonce.raw)
        #expect(again.id == created.id)
        #expect(Set(try await tablet.identity.listSessions().map(\.deviceName)) == ["phone", "tablet"])
    }

    @Test func googleSignIn_createsTheAccount_andSigningInAgainFindsIt() async throws {
        let subject = ProviderTokens.uniqueSubject()
        let client = try EndToEnd.client(app: "swivo")
        defer { client.close() }

        let nonce = ProviderNonce()
        let created = try await client.identity.signInWithProvider(
            .google, idToken: try Self.tokens.es256(ProviderTokens.google(subject: subject, app: "swivo", nonce: nonce)),
            rawNonce: nonce.raw)
        #expect(created.signInMethods == ["google"] && !created.anonymous)
        try await client.identity.signOut()

        let next = ProviderNonce()
        let again = try await client.identity.signInWithProvider(
            .google, idToken: try Self.tokens.rs256(ProviderTokens.google(subject: subject, app: "swivo", nonce: next)),
            rawNonce: next.raw)
        #expect(again.id == created.id)
        #expect(try await client.identity.getAccount().id == created.id)
    }

    @Test func theSameAppleID_inAnotherApp_isAnotherAccount() async throws {
        let subject = ProviderTokens.uniqueSubject()
        let swivo = try EndToEnd.client(app: "swivo")
        let momento = try EndToEnd.client(app: "momento")
        defer { swivo.close(); momento.close() }
        let first = ProviderNonce(), second = ProviderNonce()
        let inSwivo = try await swivo.identity.signInWithProvider(
            .apple, idToken: try Self.tokens.rs256(ProviderTokens.apple(subject: subject, app: "swivo", nonce: first)),
            rawNonce: first.raw)
        let inMomento = try await momento.identity.signInWithProvider(
            .apple, idToken: try Self.tokens.rs256(ProviderTokens.apple(subject: subject, app: "momento", nonce: second)),
            rawNonce: second.raw)
        #expect(inSwivo.id != inMomento.id)
    }

    /// An ID token Identity must refuse, and the reason the user's app hears.
    enum RefusedToken: String, CaseIterable, Sendable {
        /// Signed by someone without the provider's key, under the provider key's kid.
        case forged
        /// A genuine token the provider issued to another app (another audience).
        case anotherApp
        /// A genuine token that expired an hour ago.
        case expired
        /// A genuine token minted for another sign-in's nonce (a replayed token).
        case wrongNonce

        var reason: String {
            switch self {
            case .forged: "ID_TOKEN_BAD_SIGNATURE"
            case .anotherApp: "ID_TOKEN_WRONG_AUDIENCE"
            case .expired: "ID_TOKEN_EXPIRED"
            case .wrongNonce: "ID_TOKEN_NONCE_MISMATCH"
            }
        }

        /// The provider, token and nonce a sign-in to swivo sends.
        func signIn(subject: String) throws -> (Identity.IdentityProvider, String, ProviderNonce) {
            let nonce = ProviderNonce()
            let tokens = ProviderTokens.shared
            switch self {
            case .forged:
                return (.google, try tokens.forged(ProviderTokens.google(subject: subject, app: "swivo", nonce: nonce)), nonce)
            case .anotherApp:
                return (.apple, try tokens.rs256(ProviderTokens.apple(subject: subject, app: "momento", nonce: nonce)), nonce)
            case .expired:
                var claims = ProviderTokens.google(subject: subject, app: "swivo", nonce: nonce)
                claims["iat"] = .integer(ProviderTokens.now - 7200)
                claims["exp"] = .integer(ProviderTokens.now - 3600)
                return (.google, try tokens.es256(claims), nonce)
            case .wrongNonce:
                let token = try tokens.rs256(ProviderTokens.apple(subject: subject, app: "swivo", nonce: ProviderNonce()))
                return (.apple, token, nonce)
            }
        }
    }

    @Test(arguments: RefusedToken.allCases)
    func aRefusedIDToken_isUnauthenticatedWithItsReason_andSignsNobodyIn(_ refused: RefusedToken) async throws {
        let client = try EndToEnd.client(app: "swivo")
        defer { client.close() }
        let subject = ProviderTokens.uniqueSubject()
        let (provider, token, nonce) = try refused.signIn(subject: subject)

        let error = await gatewayError { _ = try await client.identity.signInWithProvider(provider, idToken: token, rawNonce: nonce.raw) }
        #expect(error?.code == .unauthenticated && error?.reason == refused.reason)
        #expect(try client.currentSession() == nil)

        // No account was made for the subject: a good token for it creates one now.
        let good = ProviderNonce()
        let created = try await client.identity.signInWithProvider(
            .google, idToken: try Self.tokens.es256(ProviderTokens.google(subject: subject, app: "swivo", nonce: good)),
            rawNonce: good.raw)
        #expect(try await client.identity.getAccount().id == created.id)
    }

    @Test func anEmptyNonce_isNonceRequired() async throws {
        let client = try EndToEnd.client(app: "swivo")
        defer { client.close() }
        let token = try Self.tokens.rs256(ProviderTokens.apple(subject: ProviderTokens.uniqueSubject(), app: "swivo", nonce: ProviderNonce()))
        let error = await gatewayError { _ = try await client.identity.signInWithProvider(.apple, idToken: token, rawNonce: "") }
        #expect(error?.code == .invalidArgument && error?.reason == "NONCE_REQUIRED")
    }
}
