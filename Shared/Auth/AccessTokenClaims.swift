package import CryptoCore
import Foundation

/// The layout of Identity's access tokens: a JWT (RFC 7519) with header `typ` "at+jwt"
/// (RFC 9068 §2.1) and these claims. Identity mints it; every service reads it.
package struct AccessTokenClaims: Sendable, Hashable {
    /// The `iss` of every access token.
    package static let issuer = "rendezvous-identity"
    /// The header `typ` of every access token, so no other JWT passes for one.
    package static let type = "at+jwt"

    package var account: AuthenticatedAccount
    package var issuedAt: Int64
    package var expiresAt: Int64
    /// The exact issue time in Unix milliseconds (claim `iat_ms`), so that a token issued in the
    /// same second as, but after, a change of the account's claims is not taken for a stale one.
    package var issuedAtMilliseconds: Int64?

    package init(account: AuthenticatedAccount, issuedAt: Int64, expiresAt: Int64, issuedAtMilliseconds: Int64? = nil) {
        self.account = account
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.issuedAtMilliseconds = issuedAtMilliseconds
        self.account.issuedAtMilliseconds = issuedAtMilliseconds ?? issuedAt * 1000
    }

    /// The claims: `iss`, `aud` (the app), `sub`, `app`, `role`, `tier`, `ms`, `sid`, `iat`,
    /// `nbf` (= `iat`), `exp`, `iat_ms` when set, and `adm` false when the app does not admit
    /// the account (absent, as in tokens minted before the claim existed, means admitted).
    package var jwtClaims: JWTClaims {
        var claims: JWTClaims = [
            "iss": .string(Self.issuer),
            "aud": .string(account.app),
            "sub": .string(account.accountID),
            "app": .string(account.app),
            "role": .string(account.role),
            "tier": .string(account.tier),
            "ms": .string(account.membershipStatus),
            "sid": .string(account.sessionID),
            "iat": .integer(issuedAt),
            "nbf": .integer(issuedAt),
            "exp": .integer(expiresAt),
        ]
        if let issuedAtMilliseconds { claims["iat_ms"] = .integer(issuedAtMilliseconds) }
        if !account.admitted { claims["adm"] = .bool(false) }
        return claims
    }

    /// Reads verified claims; nil when one of ours is missing.
    package init?(_ claims: JWTClaims) {
        guard let subject = claims.string("sub"), let app = claims.string("app"),
              let issuedAt = claims.numericDate("iat"), let expiresAt = claims.numericDate("exp") else { return nil }
        self.account = AuthenticatedAccount(accountID: subject, app: app, role: claims.string("role") ?? "",
                                            tier: claims.string("tier") ?? "", membershipStatus: claims.string("ms") ?? "",
                                            sessionID: claims.string("sid") ?? "",
                                            admitted: claims.bool("adm") ?? true)
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        // Only an `iat_ms` within the second `iat` names counts; otherwise the coarser `iat`.
        if let exact = claims.numericDate("iat_ms"), exact >= issuedAt * 1000, exact < (issuedAt + 1) * 1000 {
            issuedAtMilliseconds = exact
        }
        account.issuedAtMilliseconds = issuedAtMilliseconds ?? issuedAt * 1000
    }

    /// The signed token.
    package func sign(with key: ECSigningKey) throws -> String {
        try JWS.sign(header: ["typ": .string(Self.type)], payload: jwtClaims.serialized(), key: key)
    }
}
