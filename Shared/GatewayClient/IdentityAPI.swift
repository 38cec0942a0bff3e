public import ContractTypes
public import RPCCore

extension GatewayClient {
    /// Accounts, sign-in and sessions (`rendezvous.identity.v1.Identity`).
    public var identity: IdentityAPI { IdentityAPI(runner: runner) }
}

/// The Identity service as an app calls it. Sign-in methods save the session they start in the
/// client's token store; sign-out and account deletion clear it; the other methods use it.
/// Apple, Google and phone sign-in, linking and deletion are in the `IdentityAPI+…` files.
public struct IdentityAPI: Sendable {
    let runner: CallRunner

    /// Every Identity method the client calls, with its retry and authentication rules: the one
    /// place they are decided.
    enum Methods {
        static let signInAnonymously = GatewayMethod("Identity/SignInAnonymously", .write, .none)
        static let signUpWithEmail = GatewayMethod("Identity/SignUpWithEmail", .write, .none)
        static let signInWithEmail = GatewayMethod("Identity/SignInWithEmail", .write, .none)
        static let signOut = GatewayMethod("Identity/SignOut", .write, .session)
        static let listSessions = GatewayMethod("Identity/ListSessions", .read, .session)
        static let getAccount = GatewayMethod("Identity/GetAccount", .read, .session)
        static let getSigningKeys = GatewayMethod("Identity/GetSigningKeys", .read, .none)
        /// A write: the first sign-in of a provider account creates the account, and a repeat
        /// would open a second session.
        static let signInWithProvider = GatewayMethod("Identity/SignInWithProvider", .write, .none)
        /// Never repeated: each attempt sends an SMS (and counts against the number's hourly limit).
        static let startPhoneSignIn = GatewayMethod("Identity/StartPhoneSignIn", .write, .none)
        /// A code signs in once and each attempt spends one of its five tries.
        static let verifyPhoneCode = GatewayMethod("Identity/VerifyPhoneCode", .write, .none)
        /// Writes: a repeat after a lost answer would report ALREADY_LINKED (or a spent code)
        /// for a link that worked. Their requests carry a credential of their own, whose
        /// refusals are not the session's.
        static let linkProvider = GatewayMethod("Identity/LinkProvider", .write, .session,
                                                requestCredentialReasons: idTokenReasons)
        static let linkEmail = GatewayMethod("Identity/LinkEmail", .write, .session)
        static let linkPhone = GatewayMethod("Identity/LinkPhone", .write, .session,
                                             requestCredentialReasons: phoneCodeReasons)
        /// Never repeated: deletion cannot be undone, and the app should hear its one answer.
        static let deleteAccount = GatewayMethod("Identity/DeleteAccount", .write, .session)

        /// UNAUTHENTICATED reasons about the ID token a request carries (identity.proto).
        static let idTokenReasons = names([
            .idTokenMalformed, .idTokenUnknownKey, .idTokenBadSignature, .idTokenExpired, .idTokenNotYetValid,
            .idTokenWrongIssuer, .idTokenWrongAudience, .idTokenNonceMismatch,
        ])
        /// UNAUTHENTICATED reasons about the one-time code a request carries (identity.proto).
        static let phoneCodeReasons = names([.invalidCode, .codeExpired])

        private static func names(_ reasons: [Identity.ErrorReason]) -> Set<String> { Set(reasons.compactMap(\.name)) }
    }

    var stub: IdentityClient { IdentityClient(client: runner.transport) }
    var app: String { runner.configuration.app }

    func device(_ name: String?) -> String { name ?? runner.configuration.deviceName }

    /// Creates an anonymous device account (apps whose policy allows it) and signs in to it.
    public func signInAnonymously(deviceName: String? = nil, deadline: Duration? = nil) async throws(GatewayError) -> Identity.Account {
        let request = Identity.SignInAnonymouslyRequest(app: app, deviceName: device(deviceName))
        return try await startSession(Methods.signInAnonymously, deadline) { [stub] options in
            try await stub.signInAnonymously(request, options: options)
        }
    }

    /// Creates an account with an email and password and signs in to it.
    /// Fails with `INVALID_EMAIL`, `WEAK_PASSWORD` or `EMAIL_TAKEN` as Identity decides.
    /// `referralCode`: a member's code (ÉLITE) redeemed when this call creates the account, which
    /// then starts active; a code that cannot be used fails the call and creates nothing
    /// (`REFERRAL_CODE_USED`, `REFERRAL_CODE_EXPIRED`, `REFERRAL_CODE_NOT_FOUND`, `REFERRALS_NOT_OFFERED`…).
    public func signUpWithEmail(_ email: String, password: String, referralCode: String = "", deviceName: String? = nil,
                                deadline: Duration? = nil) async throws(GatewayError) -> Identity.Account {
        var request = Identity.SignUpWithEmailRequest(app: app, email: email, password: password, deviceName: device(deviceName))
        request.referralCode = referralCode
        return try await startSession(Methods.signUpWithEmail, deadline) { [stub, request] options in
            try await stub.signUpWithEmail(request, options: options)
        }
    }

    /// Signs in with an email and password. Fails with `INVALID_CREDENTIALS`, or
    /// `TOO_MANY_ATTEMPTS` (details `retry_after_seconds`) after repeated failures.
    public func signInWithEmail(_ email: String, password: String, deviceName: String? = nil,
                                deadline: Duration? = nil) async throws(GatewayError) -> Identity.Account {
        let request = Identity.SignInWithEmailRequest(app: app, email: email, password: password, deviceName: device(deviceName))
        return try await startSession(Methods.signInWithEmail, deadline) { [stub] options in
            try await stub.signInWithEmail(request, options: options)
        }
    }

    /// Rotates the session's tokens now (calls refresh by themselves when needed; this is for
    /// an app that wants fresh claims, say after its role changed).
    @discardableResult
    public func refreshSession() async throws(GatewayError) -> StoredSession {
        do {
            guard let session = try runner.sessions.current() else { throw GatewayError.signedOut(cause: "NO_SESSION") }
            return try await runner.sessions.refreshed(after: session.accessToken)
        } catch {
            throw GatewayError.gateway(error)
        }
    }

    /// Ends this device's session, on the server and here. The stored session is cleared even
    /// when the server cannot be told (the error is still thrown).
    public func signOut(deadline: Duration? = nil) async throws(GatewayError) {
        try await endSessions(Identity.SignOutRequest(), deadline: deadline, clearsThisSession: { _ in true })
    }

    /// Ends every session of the account, this one included; returns how many were open.
    @discardableResult
    public func signOutEverywhere(deadline: Duration? = nil) async throws(GatewayError) -> Int {
        try await endSessions(Identity.SignOutRequest(allSessions: true), deadline: deadline, clearsThisSession: { _ in true })
    }

    /// Ends one session of the account (another device's, from `listSessions`). Ending this
    /// device's own session signs out here too. Fails with `SESSION_NOT_FOUND`.
    public func signOut(sessionID: String, deadline: Duration? = nil) async throws(GatewayError) {
        try await endSessions(Identity.SignOutRequest(sessionID: sessionID), deadline: deadline,
                              clearsThisSession: { $0 == sessionID })
    }

    /// The account's open sessions; `current` marks this device's.
    public func listSessions(deadline: Duration? = nil) async throws(GatewayError) -> [Identity.Session] {
        try await runner.run(Methods.listSessions, deadline: deadline) { [stub] options in
            try await stub.listSessions(options: options).sessions
        }
    }

    /// The signed-in account.
    public func getAccount(deadline: Duration? = nil) async throws(GatewayError) -> Identity.Account {
        try await runner.run(Methods.getAccount, deadline: deadline) { [stub] options in
            try await stub.getAccount(options: options)
        }
    }

    /// The public keys that verify access tokens (a JWKS), for clients that check tokens themselves.
    public func getSigningKeys(deadline: Duration? = nil) async throws(GatewayError) -> Identity.SigningKeySet {
        try await runner.run(Methods.getSigningKeys, deadline: deadline) { [stub] options in
            try await stub.getSigningKeys(options: options)
        }
    }

    // MARK: Sessions

    /// Runs a sign-in and saves the session it started; returns its account.
    func startSession(_ method: GatewayMethod, _ deadline: Duration?,
                              _ call: @Sendable (CallOptions) async throws -> Identity.AuthSession) async throws(GatewayError) -> Identity.Account {
        let response = try await runner.run(method, deadline: deadline, call)
        do {
            try runner.sessions.signedIn(response)
        } catch {
            throw GatewayError.gateway(error)
        }
        return response.account ?? Identity.Account()
    }

    /// Sends `request` and clears the stored session when it ended this device's session, or
    /// when the server says the session was already gone.
    @discardableResult
    private func endSessions(_ request: Identity.SignOutRequest, deadline: Duration?,
                             clearsThisSession: (String) -> Bool) async throws(GatewayError) -> Int {
        let current: StoredSession?
        do {
            current = try runner.sessions.current()
        } catch {
            throw GatewayError.gateway(error)
        }
        guard let current else { return 0 }
        let clears = clearsThisSession(current.sessionID)
        var failure: GatewayError?
        var sessionGone = false
        var revoked = 0
        do {
            revoked = Int(try await runner.run(Methods.signOut, deadline: deadline) { [stub] options in
                try await stub.signOut(request, options: options)
            }.revokedSessions)
        } catch where error.code == .unauthenticated {
            // Already gone (revoked elsewhere, refresh refused): signed out all the same.
            sessionGone = true
        } catch {
            failure = error
        }
        if clears || sessionGone {
            do {
                try runner.sessions.signedOut()
            } catch {
                failure = failure ?? GatewayError.gateway(error)
            }
        }
        if let failure { throw failure }
        return revoked
    }
}
