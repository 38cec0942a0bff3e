import Auth
import Foundation
import Postgres
import Runtime

/// The App Store subscriptions and transactions Identity has seen, and the tier grant each
/// subscription gives: its latest unrevoked transaction's tier, until that one's expiry.
///
/// A subscription (original transaction id) belongs to the first account that applies one of
/// its transactions; its row lock serializes every change to it. Locks are taken account first
/// (as every tier change does), then subscription, then grant.
enum AppStoreLedger {
    /// Records a verified, policy-checked transaction for `accountID` and refreshes the account's
    /// tier, in the caller's transaction. Applying one transaction again changes nothing.
    ///
    /// Throws PERMISSION_DENIED `TRANSACTION_BOUND_TO_ANOTHER_ACCOUNT` when the subscription is
    /// another account's. A revoked transaction withdraws its grant if the subscription is the
    /// caller's and returns `false`; otherwise returns `true`.
    static func record(_ transaction: AppStoreTransaction, tier: String, accountID: UUID, app: String,
                       outbox: Outbox, revocationList: RevocationList? = nil,
                       on connection: Connection) async throws -> Bool {
        guard try await MemberAccounts.lock(accountID, app: app, on: connection) != nil else {
            throw IdentityError.accountNotFound
        }
        let revoked = transaction.revokedAt != nil
        if !revoked {
            _ = try await connection.execute("""
                INSERT INTO identity.app_store_subscriptions (app, original_transaction_id, account_id)
                VALUES ($1, $2, $3) ON CONFLICT DO NOTHING
                """, [.text(app), .text(transaction.originalTransactionID), .uuid(accountID)])
        }
        let owners = try await connection.query("""
            SELECT account_id FROM identity.app_store_subscriptions
            WHERE app = $1 AND original_transaction_id = $2 FOR UPDATE
            """, [.text(app), .text(transaction.originalTransactionID)])
        guard let owner = owners.first else { return false }  // Revoked and never applied: nothing to withdraw.
        guard try owner.decode(0, as: UUID.self) == accountID else {
            throw MembershipError.transactionBoundToAnotherAccount
        }
        _ = try await connection.execute("""
            INSERT INTO identity.app_store_transactions AS t
                (app, transaction_id, original_transaction_id, product_id, tier, environment, purchased_at,
                 expires_at, revoked_at, signed_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            ON CONFLICT (app, transaction_id) DO UPDATE SET revoked_at = COALESCE(t.revoked_at, EXCLUDED.revoked_at)
            WHERE t.original_transaction_id = EXCLUDED.original_transaction_id
            """, [.text(app), .text(transaction.transactionID), .text(transaction.originalTransactionID),
                  .text(transaction.productID), .text(tier), .text(transaction.environment),
                  .timestamptz(transaction.purchasedAt), .timestamptz(transaction.expiresAt),
                  .timestamptz(transaction.revokedAt), .timestamptz(transaction.signedAt)])
        let latest = try await connection.query("""
            SELECT tier, expires_at FROM identity.app_store_transactions
            WHERE app = $1 AND original_transaction_id = $2 AND revoked_at IS NULL
            ORDER BY expires_at DESC, signed_at DESC LIMIT 1
            """, [.text(app), .text(transaction.originalTransactionID)])
        try await TierGrants.set(.appStore(originalTransactionID: transaction.originalTransactionID),
                                 accountID: accountID, app: app, tier: try latest.first?.decode(0, as: String.self),
                                 expiresAt: try latest.first?.decode(1, as: Date.self), on: connection)
        try await TierGrants.refresh(accountID: accountID, outbox: outbox, revocationList: revocationList, on: connection)
        return !revoked
    }
}
