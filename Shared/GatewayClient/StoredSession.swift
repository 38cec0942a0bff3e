public import ContractTypes
public import Foundation

/// A signed-in session as the client keeps it between launches: the tokens Identity issued and
/// when they expire (the server's clock).
///
/// `description` never shows the tokens.
public struct StoredSession: Sendable, Equatable, Codable, CustomStringConvertible {
    public var accountID: String
    public var sessionID: String
    /// Sent as `authorization: Bearer …` on authenticated calls.
    public var accessToken: String
    public var accessTokenExpiresAt: Date
    /// Single use: each refresh returns the next one, and presenting a spent one revokes the session.
    public var refreshToken: String
    public var refreshTokenExpiresAt: Date

    public init(accountID: String, sessionID: String, accessToken: String, accessTokenExpiresAt: Date,
                refreshToken: String, refreshTokenExpiresAt: Date) {
        self.accountID = accountID
        self.sessionID = sessionID
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
    }

    /// The session an `AuthSession` response carries; nil when a field it needs is missing.
    public init?(_ session: Identity.AuthSession) {
        guard let account = session.account, !account.id.isEmpty, !session.sessionID.isEmpty,
              !session.accessToken.isEmpty, !session.refreshToken.isEmpty,
              let accessExpiry = session.accessTokenExpiresAt, let refreshExpiry = session.refreshTokenExpiresAt
        else { return nil }
        self.init(accountID: account.id, sessionID: session.sessionID, accessToken: session.accessToken,
                  accessTokenExpiresAt: Date(accessExpiry), refreshToken: session.refreshToken,
                  refreshTokenExpiresAt: Date(refreshExpiry))
    }

    public var description: String {
        "StoredSession(account \(accountID), session \(sessionID), access token until \(accessTokenExpiresAt), "
            + "refresh token until \(refreshTokenExpiresAt))"
    }
}

extension Date {
    /// The instant a protobuf Timestamp names.
    init(_ timestamp: Timestamp) {
        self.init(timeIntervalSince1970: Double(timestamp.seconds) + Double(timestamp.nanos) / 1e9)
    }
}
