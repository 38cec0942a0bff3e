import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.identity.v1.Identity`: the RPC handlers, each a short composition of the
/// feature types (policies, stores, issuer).
struct IdentityService: IdentityProvider {
    let pool: PostgresPool
    let settings: IdentitySettings
    let ring: KeyRing
    let outbox: Outbox
    /// The process's revoked sessions: told at once when this instance revokes one.
    var revocationList: RevocationList? = nil
    /// Anonymous sign-ins stored in batches (group commit, `GroupCommitQueue`); nil: each in a
    /// transaction of its own.
    var anonymousSignIns: GroupCommitQueue<AnonymousSignIn, Identity.AuthSession>? = nil
    /// GetAccount's read, sent with other callers' (`BatchedReads`).
    let accountReads: BatchedReads

    /// One `SignInAnonymously` as a batch of them stores it.
    struct AnonymousSignIn: Sendable {
        var policy: AppPolicy
        var deviceName: String
    }

    /// Methods callable without an access token.
    static let publicMethods: Set<String> = Set(
        ["SignInAnonymously", "SignUpWithEmail", "SignInWithEmail", "RefreshSession", "GetSigningKeys",
         "SignInWithProvider", "StartPhoneSignIn", "VerifyPhoneCode"]
            .map { "/\(IdentityClient.serviceName)/\($0)" })

    private var sessions: SessionStore {
        SessionStore(refreshTokenLifetime: settings.refreshTokenLifetime, revocations: tokenRevocations)
    }
    var tokenRevocations: TokenRevocations {
        TokenRevocations(outbox: outbox, accessTokenLifetime: settings.accessTokenLifetime)
    }
    private var issuer: TokenIssuer { TokenIssuer(ring: ring, accessTokenLifetime: settings.accessTokenLifetime, apps: settings.apps) }
    var credentials: EmailCredentials {
        EmailCredentials(parameters: settings.passwordParameters, maxFailures: settings.maxFailedSignIns,
                         failureWindow: settings.failureWindow, lockoutDuration: settings.lockoutDuration)
    }

    func signInAnonymously(_ request: Identity.SignInAnonymouslyRequest, context: ServerCallContext) async throws
        -> Identity.AuthSession {
        try await signInAnonymously(request)
    }

    func signUpWithEmail(_ request: Identity.SignUpWithEmailRequest, context: ServerCallContext) async throws
        -> Identity.AuthSession {
        try await signUpWithEmail(request)
    }

    func signInWithEmail(_ request: Identity.SignInWithEmailRequest, context: ServerCallContext) async throws
        -> Identity.AuthSession {
        try await signInWithEmail(request)
    }

    func refreshSession(_ request: Identity.RefreshSessionRequest, context: ServerCallContext) async throws
        -> Identity.AuthSession {
        try await refreshSession(request)
    }

    func signOut(_ request: Identity.SignOutRequest, context: ServerCallContext) async throws
        -> Identity.SignOutResponse {
        try await signOut(request, caller: try context.requireAccount())
    }

    func listSessions(_ request: Identity.ListSessionsRequest, context: ServerCallContext) async throws
        -> Identity.ListSessionsResponse {
        let caller = try context.requireAccount()
        let list = try await pool.withConnection { connection in
            try await sessions.list(accountID: try caller.accountUUID(), currentSessionID: caller.sessionID,
                                    on: connection)
        }
        return Identity.ListSessionsResponse(sessions: list)
    }

    func getAccount(_ request: Identity.GetAccountRequest, context: ServerCallContext) async throws
        -> Identity.Account {
        let caller = try context.requireAccount()
        let id = try caller.accountUUID()
        guard let account = try AccountStore.found(try await accountReads.query(AccountStore.find(id: id, app: caller.app))) else {
            throw IdentityError.accountNotFound
        }
        return account
    }

    func getSigningKeys(_ request: Identity.GetSigningKeysRequest, context: ServerCallContext) async throws
        -> Identity.SigningKeySet {
        Identity.SigningKeySet(keys: ring.publishedKeys.map(Identity.SigningKey.init),
                               maxAgeSeconds: settings.keySetMaxAge)
    }

    func signInWithProvider(_ request: Identity.SignInWithProviderRequest, context: ServerCallContext) async throws
        -> Identity.AuthSession {
        try await signInWithProvider(request)
    }

    func startPhoneSignIn(_ request: Identity.StartPhoneSignInRequest, context: ServerCallContext) async throws
        -> Identity.StartPhoneSignInResponse {
        try await startPhoneSignIn(request)
    }

    func verifyPhoneCode(_ request: Identity.VerifyPhoneCodeRequest, context: ServerCallContext) async throws
        -> Identity.AuthSession {
        try await verifyPhoneCode(request)
    }

    func linkProvider(_ request: Identity.LinkProviderRequest, context: ServerCallContext) async throws
        -> Identity.Account {
        try await linkProvider(request, caller: try context.requireAccount())
    }

    func linkEmail(_ request: Identity.LinkEmailRequest, context: ServerCallContext) async throws -> Identity.Account {
        try await linkEmail(request, caller: try context.requireAccount())
    }

    func linkPhone(_ request: Identity.LinkPhoneRequest, context: ServerCallContext) async throws -> Identity.Account {
        try await linkPhone(request, caller: try context.requireAccount())
    }

    func deleteAccount(_ request: Identity.DeleteAccountRequest, context: ServerCallContext) async throws
        -> Identity.DeleteAccountResponse {
        try await deleteAccount(caller: try context.requireAccount())
    }

    private func signInAnonymously(_ request: Identity.SignInAnonymouslyRequest) async throws -> Identity.AuthSession {
        let policy = try settings.apps.policy(for: request.app)
        guard policy.allows(.anonymous) else { throw IdentityError.signInMethodNotAllowed }
        let signIn = AnonymousSignIn(policy: policy, deviceName: request.deviceName)
        if let anonymousSignIns { return try await pool.withTransactionSpan { try await anonymousSignIns.submit(signIn) } }
        return try await signInAnonymously([signIn])[0]
    }

    /// New anonymous accounts, each with its first session and `AccountCreated` event, in one
    /// transaction: one statement inserts the accounts, and the sessions, refresh tokens and
    /// events go with the COMMIT (`openAccount`). Answers in `batch`'s order. A batch retried
    /// sign-in by sign-in after it failed (`GroupCommitQueue`) makes new accounts: had the first
    /// attempt committed, its accounts are left without a session anyone holds, as when a
    /// client retries a sign-in whose answer it lost.
    func signInAnonymously(_ batch: [AnonymousSignIn]) async throws -> [Identity.AuthSession] {
        try await pool.withTransaction { connection in
            let accounts = try await AccountStore.create(batch.map { ($0.policy, true) }, on: connection)
            var sessions: [Identity.AuthSession] = []
            sessions.reserveCapacity(batch.count)
            for (signIn, account) in zip(batch, accounts) {
                sessions.append(try await openAccount(account, referralCode: "", policy: signIn.policy,
                                                      deviceName: signIn.deviceName, on: connection))
            }
            return sessions
        }
    }

    private func signUpWithEmail(_ request: Identity.SignUpWithEmailRequest) async throws -> Identity.AuthSession {
        let policy = try settings.apps.policy(for: request.app)
        guard policy.allows(.email) else { throw IdentityError.signInMethodNotAllowed }
        let email = try EmailAddress(request.email)
        let hash = try await credentials.hashNewPassword(request.password, policy: policy)
        return try await pool.withTransaction { connection in
            let account = try await AccountStore.create(policy: policy, anonymous: false, on: connection)
            try await credentials.insert(account: account, email: email, passwordHash: hash, on: connection)
            let withEmail = try await existingAccount(try Self.uuid(account.id), app: policy.id, on: connection)
            return try await openAccount(withEmail, referralCode: request.referralCode, policy: policy,
                                         deviceName: request.deviceName, on: connection)
        }
    }

    private func signInWithEmail(_ request: Identity.SignInWithEmailRequest) async throws -> Identity.AuthSession {
        let policy = try settings.apps.policy(for: request.app)
        guard policy.allows(.email) else { throw IdentityError.signInMethodNotAllowed }
        let email = try EmailAddress(request.email)
        let accountID = try await credentials.authenticate(app: policy.id, email: email, password: request.password, pool: pool)
        return try await pool.withTransaction { connection in
            guard let account = try await AccountStore.find(id: accountID, app: policy.id, on: connection) else {
                throw IdentityError.invalidCredentials
            }
            return try await startSession(account, deviceName: request.deviceName, on: connection)
        }
    }

    private func refreshSession(_ request: Identity.RefreshSessionRequest) async throws -> Identity.AuthSession {
        guard !request.refreshToken.isEmpty, request.refreshToken.utf8.count <= 128 else {
            throw IdentityError.invalidRefreshToken
        }
        let rotation = try await pool.withTransaction { connection in
            try await sessions.rotate(request.refreshToken, on: connection)
        }
        switch rotation {
        case .rotated(let account, let sessionID, let refreshToken, let expiresAt, let issuedAt):
            return try issuer.session(account: account, sessionID: sessionID, refreshToken: refreshToken,
                                      refreshExpiresAt: expiresAt, now: issuedAt)
        case .reused(let revoked):
            if let revoked { revocationList?.apply(revoked) }
            throw IdentityError.refreshTokenReused
        case .refused(let error):
            throw error
        }
    }

    private func signOut(_ request: Identity.SignOutRequest, caller: AuthenticatedAccount) async throws -> Identity.SignOutResponse {
        let accountID = try caller.accountUUID()
        let target: UUID?
        if request.allSessions {
            target = nil
        } else {
            let text = request.sessionID.isEmpty ? caller.sessionID : request.sessionID
            guard let id = UUID(uuidString: text) else { throw IdentityError.invalidSessionID }
            target = id
        }
        let revoked = try await pool.withTransaction { connection in
            try await sessions.revoke(accountID: accountID, app: caller.app, sessionID: target, on: connection)
        }
        if let event = revoked.event { revocationList?.apply(event) }
        if target != nil, revoked.count == 0 { throw IdentityError.sessionNotFound }
        return Identity.SignOutResponse(revokedSessions: Int32(clamping: revoked.count))
    }

    func startSession(_ account: Identity.Account, deviceName: String, on connection: Connection) async throws
        -> Identity.AuthSession {
        let created = try await sessions.create(account: account, deviceName: deviceName, on: connection)
        return try issuer.session(account: account, sessionID: created.sessionID, refreshToken: created.refreshToken,
                                  refreshExpiresAt: created.expiresAt)
    }

    /// The first session of a new account, with its `AccountCreated` event and, when the
    /// sign-up carried a member's referral code, the code redeemed in the same transaction so the
    /// account (and its token) starts active. A code that cannot be redeemed fails the sign-up.
    ///
    /// The session and the event go out with the COMMIT (`Connection.executeAtCommit`); a sign-in
    /// without a code is then two round trips: the account, then the session with its refresh
    /// token, the event and the commit.
    func openAccount(_ account: Identity.Account, referralCode: String, policy: AppPolicy, deviceName: String,
                     on connection: Connection) async throws -> Identity.AuthSession {
        guard !referralCode.isEmpty else {
            let session = try await startSession(account, deviceName: deviceName, on: connection)
            try await appendAccountCreated(account, on: connection)
            return session
        }
        guard policy.memberReferrals else { throw MembershipError.referralsNotOffered }
        try await appendAccountCreated(account, on: connection)
        let id = try Self.uuid(account.id)
        try await ReferralStore(outbox: outbox).redeem(code: referralCode, account: id, on: connection)
        return try await startSession(try await existingAccount(id, app: policy.id, on: connection),
                                      deviceName: deviceName, on: connection)
    }

    /// `AccountCreated`, payload the `Account` message, in the sign-up's transaction.
    func appendAccountCreated(_ account: Identity.Account, on connection: Connection) async throws {
        try await outbox.appendAtCommit(OutboxEvent(type: "AccountCreated", app: account.app, aggregateID: account.id,
                                                    payload: account.serializedBytes()), on: connection)
    }

    /// The caller's account id; tokens are ours, so a bad one means a bug or a forged claim.
    static func uuid(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else { throw IdentityError.accountNotFound }
        return id
    }
}
