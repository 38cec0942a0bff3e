import Auth
import Contracts
import Foundation
import Postgres
import Runtime

/// Grants of tiers (`identity.tier_grants`) and the effective tier cached in
/// `identity.accounts.tier` / `tier_expires_at`.
///
/// Every change of grants ends with `refresh`, in the same transaction: it locks the account
/// row (callers lock it before they touch a grant, so locks are always taken account first),
/// so concurrent changes of one account's grants write the cache one after the other, the
/// last one from every committed grant.
enum TierGrants {
    /// Who granted a tier; an account holds at most one grant per source and source id.
    enum Source: Sendable {
        /// An admin's SetTier.
        case admin(by: UUID)
        /// An App Store subscription, by original transaction id.
        case appStore(originalTransactionID: String)

        var column: String {
            switch self {
            case .admin: "admin"
            case .appStore: "app_store"
            }
        }

        var id: String {
            switch self {
            case .admin: ""
            case .appStore(let original): original
            }
        }

        var grantedBy: UUID? {
            if case .admin(let by) = self { return by }
            return nil
        }
    }

    /// Sets the grant of `source` to `tier` until `expiresAt` (nil: no end), or removes it
    /// when `tier` is nil.
    static func set(_ source: Source, accountID: UUID, app: String, tier: String?, expiresAt: Date?,
                    on connection: Connection) async throws {
        guard let tier else {
            _ = try await connection.execute("""
                DELETE FROM identity.tier_grants WHERE account_id = $1 AND source = $2 AND source_id = $3
                """, [.uuid(accountID), .text(source.column), .text(source.id)])
            return
        }
        _ = try await connection.execute("""
            INSERT INTO identity.tier_grants (account_id, source, source_id, app, tier, expires_at, granted_by)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (account_id, source, source_id) DO UPDATE
                SET tier = EXCLUDED.tier, expires_at = EXCLUDED.expires_at, granted_by = EXCLUDED.granted_by,
                    updated_at = now()
            """, [.uuid(accountID), .text(source.column), .text(source.id), .text(app), .text(tier),
                  .timestamptz(expiresAt), .uuid(source.grantedBy)])
    }

    /// The account's effective tier now, computed from its grants.
    static func effective(accountID: UUID, app: String, on connection: Connection) async throws -> EffectiveTier {
        let rows = try await connection.query("""
            WITH active AS (
                SELECT g.tier, g.expires_at FROM identity.tier_grants g
                WHERE g.account_id = $1 AND (g.expires_at IS NULL OR g.expires_at > now())
            ), effective AS (SELECT identity.effective_tier($1, $2) AS tier)
            SELECT e.tier,
                   CASE WHEN bool_or(a.expires_at IS NULL) THEN NULL ELSE max(a.expires_at) END,
                   (SELECT min(expires_at) FROM active)
            FROM effective e LEFT JOIN active a ON a.tier = e.tier
            GROUP BY e.tier
            """, [.uuid(accountID), .text(app)])
        let row = rows[0]  // Safe: an aggregate over a one-row CTE always returns one row.
        return EffectiveTier(name: try row.decode(0), expiresAt: try row.decode(1), staleAt: try row.decode(2))
    }

    /// Recomputes the account's effective tier, caches it in `identity.accounts`, and appends
    /// `TierChanged` when it differs from what was cached. Returns nil if the account is gone.
    @discardableResult
    static func refresh(accountID: UUID, outbox: Outbox, revocationList: RevocationList? = nil,
                        on connection: Connection) async throws -> EffectiveTier? {
        let accounts = try await connection.query(
            "SELECT app, tier FROM identity.accounts WHERE id = $1 FOR UPDATE", [.uuid(accountID)])
        guard let account = accounts.first else { return nil }
        let app: String = try account.decode(0)
        let previous: String = try account.decode(1)
        let tier = try await effective(accountID: accountID, app: app, on: connection)
        _ = try await connection.execute(
            "UPDATE identity.accounts SET tier = $2, tier_expires_at = $3 WHERE id = $1",
            [.uuid(accountID), .text(tier.name), .timestamptz(tier.staleAt)])
        if tier.name != previous {
            var event = Membership.TierChanged()
            event.accountID = accountID.uuidString.lowercased()
            event.tier = tier.name
            event.previousTier = previous
            event.expiresAt = tier.expiresAt.map(Timestamp.init)
            try await outbox.appendAtCommit(OutboxEvent(type: "TierChanged", app: app, aggregateID: event.accountID,
                                                        payload: event.serializedBytes()), on: connection)
            try await TokenRevocations(outbox: outbox, list: revocationList).claimsChanged(accountID: accountID, app: app, changed: "tier",
                                                                     on: connection)
        }
        return tier
    }
}
