import Auth
import Contracts
import Foundation
import Postgres

/// Sign in with Apple / Google, and linking such an identity to an existing account.
extension IdentityService {
    var providerTokens: ProviderTokenVerifier {
        ProviderTokenVerifier(keys: settings.providerKeys, leewaySeconds: settings.idTokenLeeway)
    }

    /// The identity an ID token proves for `policy`'s app, once the policy allows the provider.
    func verifyProviderToken(_ token: String, provider: Identity.IdentityProvider, rawNonce: String,
                             policy: AppPolicy) throws -> ProviderIdentity {
        guard let provider = SignInProvider(provider) else { throw AccountError.invalidProvider }
        guard policy.allows(provider.method) else { throw IdentityError.signInMethodNotAllowed }
        return try providerTokens.verify(token, provider: provider, audiences: policy.audiences(for: provider),
                                         rawNonce: rawNonce)
    }

    func signInWithProvider(_ request: Identity.SignInWithProviderRequest) async throws -> Identity.AuthSession {
        let policy = try settings.apps.policy(for: request.app)
        let identity = try verifyProviderToken(request.idToken, provider: request.provider, rawNonce: request.rawNonce,
                                               policy: policy)
        return try await pool.withTransaction { connection in
            if let accountID = try await ProviderCredentials.account(app: policy.id, identity: identity, on: connection) {
                try await ProviderCredentials.recordSignIn(app: policy.id, identity: identity, on: connection)
                return try await startSession(try await existingAccount(accountID, app: policy.id, on: connection),
                                              deviceName: request.deviceName, on: connection)
            }
            let created = try await AccountStore.create(policy: policy, anonymous: false, on: connection)
            let createdID = try Self.uuid(created.id)
            guard try await ProviderCredentials.insert(accountID: createdID, app: policy.id, identity: identity,
                                                       on: connection) else {
                // A concurrent first sign-in of the same identity won: drop ours, sign in to theirs.
                _ = try await connection.execute("DELETE FROM identity.accounts WHERE id = $1", [.uuid(createdID)])
                guard let winner = try await ProviderCredentials.account(app: policy.id, identity: identity,
                                                                         on: connection) else {
                    throw AccountError.providerIdentityTaken
                }
                return try await startSession(try await existingAccount(winner, app: policy.id, on: connection),
                                              deviceName: request.deviceName, on: connection)
            }
            let account = try await existingAccount(createdID, app: policy.id, on: connection)
            return try await openAccount(account, referralCode: request.referralCode, policy: policy,
                                                   deviceName: request.deviceName, on: connection)
        }
    }

    func linkProvider(_ request: Identity.LinkProviderRequest, caller: AuthenticatedAccount) async throws -> Identity.Account {
        let policy = try settings.apps.policy(for: caller.app)
        let identity = try verifyProviderToken(request.idToken, provider: request.provider, rawNonce: request.rawNonce,
                                               policy: policy)
        let accountID = try caller.accountUUID()
        return try await pool.withTransaction { connection in
            try await AccountStore.lock(accountID, app: policy.id, on: connection)
            if let owner = try await ProviderCredentials.account(app: policy.id, identity: identity, on: connection) {
                guard owner == accountID else { throw AccountError.providerIdentityTaken }
                return try await existingAccount(accountID, app: policy.id, on: connection)
            }
            guard try await !ProviderCredentials.hasIdentity(accountID: accountID, provider: identity.provider,
                                                             on: connection) else {
                throw AccountError.alreadyLinked(method: identity.provider.rawValue)
            }
            guard try await ProviderCredentials.insert(accountID: accountID, app: policy.id, identity: identity,
                                                       on: connection) else {
                throw AccountError.providerIdentityTaken
            }
            try await AccountStore.markLinked(accountID, on: connection)
            return try await existingAccount(accountID, app: policy.id, on: connection)
        }
    }

    /// The account with `id`; UNAUTHENTICATED `ACCOUNT_NOT_FOUND` when it is gone (deleted).
    func existingAccount(_ id: UUID, app: String, on connection: Connection) async throws -> Identity.Account {
        guard let account = try await AccountStore.find(id: id, app: app, on: connection) else {
            throw IdentityError.accountNotFound
        }
        return account
    }
}
