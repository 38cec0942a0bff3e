import Auth
import Contracts
import Foundation

/// Mints access tokens with the ring's current key and assembles `AuthSession`s.
struct TokenIssuer: Sendable {
    let ring: KeyRing
    let accessTokenLifetime: Int64
    /// Whether the account's app admits it goes into the token (`adm`), for every service.
    let apps: AppPolicies

    func session(account: Identity.Account, sessionID: UUID, refreshToken: String, refreshExpiresAt: Date,
                 now: Date = Date()) throws -> Identity.AuthSession {
        let issuedAtMilliseconds = RevocationList.milliseconds(now)
        let issuedAt = issuedAtMilliseconds / 1000
        let expiresAt = issuedAt + accessTokenLifetime
        let claims = AccessTokenClaims(
            account: AuthenticatedAccount(accountID: account.id, app: account.app, role: account.role, tier: account.tier,
                                          membershipStatus: account.membershipStatus,
                                          sessionID: sessionID.uuidString.lowercased(),
                                          admitted: try apps.policy(for: account.app)
                                              .admits(membershipStatus: account.membershipStatus)),
            issuedAt: issuedAt, expiresAt: expiresAt, issuedAtMilliseconds: issuedAtMilliseconds)
        var session = Identity.AuthSession()
        session.account = account
        session.accessToken = try claims.sign(with: ring.signingKey())
        session.accessTokenExpiresAt = Timestamp(seconds: expiresAt)
        session.refreshToken = refreshToken
        session.refreshTokenExpiresAt = Timestamp(refreshExpiresAt)
        session.sessionID = sessionID.uuidString.lowercased()
        return session
    }
}
