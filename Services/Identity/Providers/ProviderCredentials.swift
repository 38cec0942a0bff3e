import Foundation
import Postgres

/// Rows of `identity.provider_credentials`: an Apple or Google identity (provider, subject)
/// signs in to one account per app; an account has at most one identity per provider.
enum ProviderCredentials {
    /// The account `identity` signs in to in `app`, if any.
    static func account(app: String, identity: ProviderIdentity, on connection: Connection) async throws -> UUID? {
        try await connection.query("""
            SELECT account_id FROM identity.provider_credentials WHERE app = $1 AND provider = $2 AND subject = $3
            """, [.text(app), .text(identity.provider.rawValue), .text(identity.subject)])
            .first.map { try $0.decode(0, as: UUID.self) }
    }

    /// Whether the account already has an identity of `provider`.
    static func hasIdentity(accountID: UUID, provider: SignInProvider, on connection: Connection) async throws -> Bool {
        !(try await connection.query("""
            SELECT 1 FROM identity.provider_credentials WHERE account_id = $1 AND provider = $2
            """, [.uuid(accountID), .text(provider.rawValue)])).isEmpty
    }

    /// Adds `identity` to the account; false when the identity (or another identity of the same
    /// provider on this account) got there first.
    ///
    /// A concurrent insert of the same identity makes this wait for that transaction and then
    /// do nothing, so after `false` the winner's row is visible to the next statement.
    static func insert(accountID: UUID, app: String, identity: ProviderIdentity, on connection: Connection) async throws -> Bool {
        try await connection.execute("""
            INSERT INTO identity.provider_credentials (account_id, app, provider, subject, email, email_verified)
            VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT DO NOTHING
            """, [.uuid(accountID), .text(app), .text(identity.provider.rawValue), .text(identity.subject),
                  .text(identity.email), .bool(identity.emailVerified)]) == 1
    }

    /// Records a sign-in: the provider's latest email (Apple sends it on the first sign-in only,
    /// so an absent one keeps what we have).
    static func recordSignIn(app: String, identity: ProviderIdentity, on connection: Connection) async throws {
        _ = try await connection.execute("""
            UPDATE identity.provider_credentials
            SET last_sign_in_at = now(),
                email = COALESCE($4, email),
                email_verified = CASE WHEN $4::text IS NULL THEN email_verified ELSE $5 END
            WHERE app = $1 AND provider = $2 AND subject = $3
            """, [.text(app), .text(identity.provider.rawValue), .text(identity.subject), .text(identity.email),
                  .bool(identity.emailVerified)])
    }
}
