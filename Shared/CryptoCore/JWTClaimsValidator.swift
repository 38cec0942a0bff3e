package import Foundation

/// Checks the registered claims of a verified JWT (RFC 7519 §4.1): issuer, audience, expiry,
/// not-before, and a nonce (OpenID Connect Core §3.1.3.7).
///
/// Run it after `JWS.verify`, never on unverified claims. Each failure has its own code.
package struct JWTClaimsValidator: Sendable {
    /// Accepted `iss` values (Google uses both "https://accounts.google.com" and
    /// "accounts.google.com").
    package var issuers: Set<String>
    /// Accepted audiences; the token's `aud` (a string or an array) must contain one of them.
    package var audiences: Set<String>
    /// Clock skew allowed on `exp` and `nbf`, in seconds.
    package var leewaySeconds: Int64

    package init(issuers: Set<String>, audiences: Set<String>, leewaySeconds: Int64 = 60) {
        self.issuers = issuers
        self.audiences = audiences
        self.leewaySeconds = leewaySeconds
    }

    /// Throws unless `claims` are from an accepted issuer, for an accepted audience, unexpired
    /// at `now` (`exp` is required), already valid (`nbf` if present) and, when `nonce` is given,
    /// carry exactly that `nonce`.
    ///
    /// Codes: `.wrongIssuer`, `.wrongAudience`, `.expired`, `.notYetValid`, `.wrongNonce`, and
    /// `.malformed` for a missing or mistyped `exp`, `nbf` or `aud`. Messages never quote claims.
    package func validate(_ claims: JWTClaims, now: Date, nonce: String? = nil) throws {
        guard let issuer = claims.string("iss"), self.issuers.contains(issuer) else {
            throw CryptoError(.wrongIssuer, "JWT: issuer not accepted")
        }
        guard let audience = claims.strings("aud") else {
            throw CryptoError(.malformed, "JWT: aud missing or not a string or array of strings")
        }
        guard audience.contains(where: self.audiences.contains) else {
            throw CryptoError(.wrongAudience, "JWT: audience not accepted")
        }
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        guard let expiry = claims.numericDate("exp") else {
            throw CryptoError(.malformed, "JWT: exp missing or not a number")
        }
        // RFC 7519 §4.1.4: the current time must be before exp.
        guard seconds < expiry.addingReportingOverflow(self.leewaySeconds).partialValue else {
            throw CryptoError(.expired, "JWT: expired")
        }
        if claims["nbf"] != nil {
            guard let notBefore = claims.numericDate("nbf") else {
                throw CryptoError(.malformed, "JWT: nbf not a number")
            }
            guard seconds.addingReportingOverflow(self.leewaySeconds).partialValue >= notBefore else {
                throw CryptoError(.notYetValid, "JWT: not yet valid")
            }
        }
        if let nonce {
            guard let claimed = claims.string("nonce"), ConstantTime.equals(Array(claimed.utf8), Array(nonce.utf8)) else {
                throw CryptoError(.wrongNonce, "JWT: nonce does not match")
            }
        }
    }
}
