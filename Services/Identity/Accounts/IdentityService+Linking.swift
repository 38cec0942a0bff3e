import Auth
import Contracts
import Foundation
import Postgres

/// Adding an email and password to an existing account (an anonymous device account keeps its
/// id and data and stops being anonymous).
extension IdentityService {
    func linkEmail(_ request: Identity.LinkEmailRequest, caller: AuthenticatedAccount) async throws -> Identity.Account {
        let policy = try settings.apps.policy(for: caller.app)
        guard policy.allows(.email) else { throw IdentityError.signInMethodNotAllowed }
        let email = try EmailAddress(request.email)
        let accountID = try caller.accountUUID()
        let hash = try await credentials.hashNewPassword(request.password, policy: policy)
        return try await pool.withTransaction { connection in
            try await AccountStore.lock(accountID, app: policy.id, on: connection)
            let existing = try await connection.query(
                "SELECT 1 FROM identity.email_credentials WHERE account_id = $1", [.uuid(accountID)])
            guard existing.isEmpty else { throw AccountError.alreadyLinked(method: SignInMethod.email.rawValue) }
            var account = try await existingAccount(accountID, app: policy.id, on: connection)
            try await credentials.insert(account: account, email: email, passwordHash: hash, on: connection)
            try await AccountStore.markLinked(accountID, on: connection)
            account = try await existingAccount(accountID, app: policy.id, on: connection)
            return account
        }
    }
}
