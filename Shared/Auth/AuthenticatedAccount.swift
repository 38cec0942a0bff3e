package import RPC

/// Who an access token says the caller is: what `AuthInterceptor` puts into the call's context.
package struct AuthenticatedAccount: Sendable, Hashable {
    /// The account's UUID (the token's `sub`).
    package var accountID: String
    /// The app the account belongs to (`app`, also the token's `aud`).
    package var app: String
    /// The account's role in its app.
    package var role: String
    /// Subscription tier.
    package var tier: String
    /// Membership status (active, waitlisted, ...).
    package var membershipStatus: String
    /// The session (refresh token family) the token was issued for.
    package var sessionID: String
    /// When the token was issued, in Unix milliseconds (its `iat_ms` claim, else `iat`); 0 when
    /// unknown. `RevocationList` compares it with the account's last change of claims.
    package var issuedAtMilliseconds: Int64
    /// Whether the account's app admits it (the token's `adm` claim; true when absent): false
    /// for a waitlisted or rejected account of an app whose policy keeps members out until they
    /// are admitted. `AuthInterceptor` refuses such an account all but the methods it needs to
    /// get admitted.
    package var admitted: Bool

    package init(accountID: String, app: String, role: String, tier: String, membershipStatus: String, sessionID: String,
                 issuedAtMilliseconds: Int64 = 0, admitted: Bool = true) {
        self.accountID = accountID
        self.app = app
        self.role = role
        self.tier = tier
        self.membershipStatus = membershipStatus
        self.sessionID = sessionID
        self.issuedAtMilliseconds = issuedAtMilliseconds
        self.admitted = admitted
    }
}

extension ServerCallContext {
    private enum Key {
        static let accountID = "auth.account_id"
        static let app = "auth.app"
        static let role = "auth.role"
        static let tier = "auth.tier"
        static let membershipStatus = "auth.membership_status"
        static let sessionID = "auth.session_id"
        static let notAdmitted = "auth.not_admitted"
    }

    /// The caller, when an `AuthInterceptor` verified its access token.
    package var account: AuthenticatedAccount? {
        get {
            guard let accountID = self[value: Key.accountID], let app = self[value: Key.app] else { return nil }
            return AuthenticatedAccount(accountID: accountID, app: app, role: self[value: Key.role] ?? "",
                                        tier: self[value: Key.tier] ?? "",
                                        membershipStatus: self[value: Key.membershipStatus] ?? "",
                                        sessionID: self[value: Key.sessionID] ?? "",
                                        admitted: self[value: Key.notAdmitted] == nil)
        }
        set {
            self[value: Key.accountID] = newValue?.accountID
            self[value: Key.app] = newValue?.app
            self[value: Key.role] = newValue?.role
            self[value: Key.tier] = newValue?.tier
            self[value: Key.membershipStatus] = newValue?.membershipStatus
            self[value: Key.sessionID] = newValue?.sessionID
            self[value: Key.notAdmitted] = newValue?.admitted == false ? "true" : nil
        }
    }

    /// The caller, or UNAUTHENTICATED when the call carried no verified token.
    package func requireAccount() throws -> AuthenticatedAccount {
        guard let account else {
            throw AuthFailure(.missingToken).rpcError
        }
        return account
    }
}
