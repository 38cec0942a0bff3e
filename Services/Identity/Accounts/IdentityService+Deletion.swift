import Auth
import Contracts
import Foundation
import Postgres

/// `DeleteAccount`: the App Store requires that users can delete their account in the app.
extension IdentityService {
    func deleteAccount(caller: AuthenticatedAccount) async throws -> Identity.DeleteAccountResponse {
        let accountID = try caller.accountUUID()
        guard let sessionID = UUID(uuidString: caller.sessionID) else { throw IdentityError.sessionRevoked }
        let deletion = try await pool.withTransaction { connection in
            // Deletion cannot be undone: an access token whose session was signed out (it stays
            // valid until it expires) must not be enough.
            let active = try await connection.query("""
                SELECT 1 FROM identity.sessions WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL
                """, [.uuid(sessionID), .uuid(accountID)])
            guard !active.isEmpty else {
                // Sessions go with their account: a deleted one answers ACCOUNT_NOT_FOUND here.
                try await AccountStore.lock(accountID, app: caller.app, on: connection)
                throw IdentityError.sessionRevoked
            }
            return try await AccountDeletion(outbox: outbox, accessTokenLifetime: settings.accessTokenLifetime)
                .delete(accountID: accountID, app: caller.app, on: connection)
        }
        if let revoked = deletion.revoked { revocationList?.apply(revoked) }
        return Identity.DeleteAccountResponse(deletedAt: Timestamp(deletion.deletedAt))
    }
}
