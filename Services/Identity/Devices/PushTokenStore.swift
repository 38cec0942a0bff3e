import Foundation
import Postgres
import Runtime

/// The SQL of `identity.push_tokens`. Writers for one account take `lockAccount` first, so an
/// account's registrations run one at a time and its limits hold.
struct PushTokenStore: Sendable {
    let settings: DeviceSettings

    /// Matches a token as registered: APNs tokens are stored lowercased, so `$n` matches one in
    /// any case.
    private static func tokenMatches(_ parameter: Int) -> String {
        "(t.token = $\(parameter) OR (t.platform = 'apns' AND t.token = lower($\(parameter))))"
    }

    /// Locks the caller's account row until the transaction ends; false when the account is gone.
    func lockAccount(_ accountID: UUID, app: String, on connection: Connection) async throws -> Bool {
        // NO KEY UPDATE: serialises this account's token writers without blocking the foreign
        // key checks (KEY SHARE) of other tables' inserts.
        let rows = try await connection.query(
            "SELECT 1 FROM identity.accounts WHERE id = $1 AND app = $2 FOR NO KEY UPDATE", [.uuid(accountID), .text(app)])
        return !rows.isEmpty
    }

    /// Inserts the token for the account, or takes over its row: from another account of the
    /// app (the device changed hands) or from this one (a refresh, reactivating it).
    func upsert(_ registration: PushTokenRegistration, accountID: UUID, app: String,
                on connection: Connection) async throws -> StoredPushToken {
        let rows = try await connection.query("""
            INSERT INTO identity.push_tokens AS t
                (id, account_id, app, token, platform, environment, device_id, app_version, created_at, last_seen_at, kind)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, statement_timestamp(), statement_timestamp(), $9)
            ON CONFLICT (app, token) DO UPDATE SET
                account_id = excluded.account_id,
                kind = excluded.kind,
                platform = excluded.platform,
                environment = excluded.environment,
                device_id = excluded.device_id,
                app_version = CASE WHEN excluded.app_version = '' THEN t.app_version ELSE excluded.app_version END,
                active = true,
                inactive_reason = NULL,
                deactivated_at = NULL,
                last_seen_at = excluded.last_seen_at,
                created_at = CASE WHEN t.account_id = excluded.account_id THEN t.created_at ELSE excluded.created_at END
            RETURNING \(StoredPushToken.columns)
            """, [.uuid(UUID.random()), .uuid(accountID), .text(app), .text(registration.token), .text(registration.platform.rawValue),
                  .text(registration.environment.rawValue), .text(registration.deviceID), .text(registration.appVersion),
                  .text(registration.kind.rawValue)])
        return try StoredPushToken(row: rows[0])
    }

    /// After `kept` was registered: the account's other active tokens of its kind on the same
    /// device go inactive (REPLACED), then the least recently seen beyond the active limit
    /// (TOO_MANY_DEVICES), and the oldest inactive rows beyond their limit are deleted.
    func enforceLimits(after kept: StoredPushToken, on connection: Connection) async throws {
        _ = try await connection.execute("""
            UPDATE identity.push_tokens SET active = false, inactive_reason = 'replaced', deactivated_at = statement_timestamp()
            WHERE account_id = $1 AND app = $2 AND device_id = $3 AND id <> $4 AND active AND kind = $5
            """, [.uuid(kept.accountID), .text(kept.app), .text(kept.deviceID), .uuid(kept.id), .text(kept.kind.rawValue)])
        // `account_id = $1 AND active` is repeated outside the subquery: a row another
        // transaction moved to another account meanwhile is rechecked, and left alone.
        _ = try await connection.execute("""
            UPDATE identity.push_tokens SET active = false, inactive_reason = 'too_many_devices',
                deactivated_at = statement_timestamp()
            WHERE account_id = $1 AND active AND id IN (
                SELECT id FROM identity.push_tokens WHERE account_id = $1 AND active
                ORDER BY last_seen_at DESC, created_at DESC, id OFFSET $2)
            """, [.uuid(kept.accountID), .int(settings.maxActiveTokensPerAccount)])
        _ = try await connection.execute("""
            DELETE FROM identity.push_tokens
            WHERE account_id = $1 AND NOT active AND id IN (
                SELECT id FROM identity.push_tokens WHERE account_id = $1 AND NOT active
                ORDER BY deactivated_at DESC NULLS LAST, last_seen_at DESC, id OFFSET $2)
            """, [.uuid(kept.accountID), .int(settings.maxInactiveTokensPerAccount)])
    }

    /// The account's token `token` (any case for APNs), locked for update; nil when it holds none.
    func findForUpdate(_ token: String, accountID: UUID, app: String, on connection: Connection) async throws -> StoredPushToken? {
        let rows = try await connection.query("""
            SELECT \(StoredPushToken.columns) FROM identity.push_tokens t
            WHERE t.account_id = $1 AND t.app = $2 AND \(Self.tokenMatches(3))
            FOR UPDATE
            """, [.uuid(accountID), .text(app), .text(token)])
        return try rows.first.map(StoredPushToken.init(row:))
    }

    /// Deletes the row `id` of the account.
    func delete(id: UUID, accountID: UUID, on connection: Connection) async throws {
        _ = try await connection.execute("DELETE FROM identity.push_tokens WHERE id = $1 AND account_id = $2",
                                         [.uuid(id), .uuid(accountID)])
    }

    /// Deletes the account's token `token`; false when the account held none.
    func delete(_ token: String, accountID: UUID, app: String, on connection: Connection) async throws -> Bool {
        try await connection.execute("""
            DELETE FROM identity.push_tokens t WHERE t.account_id = $1 AND t.app = $2 AND \(Self.tokenMatches(3))
            """, [.uuid(accountID), .text(app), .text(token)]) > 0
    }

    /// The account's tokens, active first, then most recently seen first.
    func list(accountID: UUID, app: String, on connection: Connection) async throws -> [StoredPushToken] {
        try await connection.query("""
            SELECT \(StoredPushToken.columns) FROM identity.push_tokens t
            WHERE t.account_id = $1 AND t.app = $2
            ORDER BY t.active DESC, t.last_seen_at DESC, t.id
            """, [.uuid(accountID), .text(app)]).map(StoredPushToken.init(row:))
    }

    /// The active tokens of `accountIDs` in `app`, grouped by account, most recently seen first.
    func listActive(app: String, accountIDs: [UUID], on connection: Connection) async throws -> [StoredPushToken] {
        try await connection.query("""
            SELECT \(StoredPushToken.columns) FROM identity.push_tokens t
            WHERE t.app = $1 AND t.account_id = ANY($2) AND t.active
            ORDER BY t.account_id, t.last_seen_at DESC, t.id
            """, [.text(app), .uuidArray(accountIDs)]).map(StoredPushToken.init(row:))
    }

    /// Deactivates the active token `token` of `app` for `reason`, unless it was registered
    /// again after `invalidSince`; false when nothing changed.
    func deactivate(_ token: String, app: String, reason: PushTokenInactiveReason, invalidSince: Date?,
                    on connection: Connection) async throws -> Bool {
        try await connection.execute("""
            UPDATE identity.push_tokens t SET active = false, inactive_reason = $3, deactivated_at = statement_timestamp()
            WHERE t.app = $1 AND \(Self.tokenMatches(2)) AND t.active
              AND ($4::timestamptz IS NULL OR t.last_seen_at <= $4::timestamptz)
            """, [.text(app), .text(token), .text(reason.rawValue), .timestamptz(invalidSince)]) > 0
    }
}
