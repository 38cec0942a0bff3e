import CryptoCore
import Foundation

/// Checks an Apple or Google ID token: signature with the provider's configured keys (RS256 or
/// ES256, the key's type fixing the algorithm), then issuer, audience, expiry, not-before and
/// nonce (OpenID Connect Core §3.1.3.7).
struct ProviderTokenVerifier: Sendable {
    let keys: ProviderKeys
    /// Clock skew allowed on `exp` and `nbf`, seconds.
    let leewaySeconds: Int64

    /// Longest nonce accepted, in bytes; apps send 32–64 random characters.
    static let maximumNonceBytes = 256

    /// The identity the token proves, for an app whose accepted audiences are `audiences`.
    func verify(_ token: String, provider: SignInProvider, audiences: Set<String>, rawNonce: String,
                now: Date = Date()) throws(AccountError) -> ProviderIdentity {
        guard !rawNonce.isEmpty, rawNonce.utf8.count <= Self.maximumNonceBytes else { throw .nonceRequired }
        guard let set = keys[provider] else { throw .providerNotConfigured }
        let claims: JWTClaims
        do {
            claims = try JWS.verify(token: token, keys: set).claims()
            try JWTClaimsValidator(issuers: provider.issuers, audiences: audiences, leewaySeconds: leewaySeconds)
                .validate(claims, now: now, nonce: provider.expectedNonce(raw: rawNonce))
        } catch let error as CryptoError {
            throw .idToken(Self.problem(error))
        } catch {
            throw .idToken(.malformed)
        }
        guard let subject = claims.string("sub"), !subject.isEmpty, subject.utf8.count <= 255 else {
            throw .idToken(.malformed)
        }
        let email = claims.string("email").flatMap { try? EmailAddress($0).value }
        return ProviderIdentity(provider: provider, subject: subject, email: email,
                                emailVerified: email != nil && Self.isTrue(claims["email_verified"]))
    }

    /// Apple sends `email_verified` as the string "true", Google as a Boolean.
    private static func isTrue(_ value: JSONValue?) -> Bool {
        value?.boolValue == true || value?.stringValue == "true"
    }

    private static func problem(_ error: CryptoError) -> AccountError.TokenProblem {
        switch error.code {
        case .unknownKeyID: .unknownKey
        case .badSignature: .badSignature
        case .expired: .expired
        case .notYetValid: .notYetValid
        case .wrongIssuer: .wrongIssuer
        case .wrongAudience: .wrongAudience
        case .wrongNonce: .nonceMismatch
        default: .malformed
        }
    }
}
