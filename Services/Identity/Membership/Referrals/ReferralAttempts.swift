import Foundation
import Postgres

/// Wrong referral codes an account tried (`identity.referral_attempts`): a code is six letters of
/// 31, about 890 million, and unguessable only while guesses are few. The `maxMisses`-th miss
/// within `window` seconds locks the account's redemptions for `lockout` seconds
/// (RESOURCE_EXHAUSTED `TOO_MANY_ATTEMPTS`); a redemption that succeeds ends the account's
/// waitlisted state, so nothing is reset.
struct ReferralAttempts: Sendable {
    var maxMisses = 10
    var window: Int64 = 3_600
    var lockout: Int64 = 3_600

    /// Throws `TOO_MANY_ATTEMPTS` while `account` is locked.
    func check(_ account: UUID, pool: PostgresPool) async throws {
        let lockedFor = try await pool.withConnection { connection in
            try await connection.query("""
                SELECT GREATEST(0, ceil(extract(epoch FROM locked_until - now())))::bigint
                FROM identity.referral_attempts WHERE account_id = $1
                """, [.uuid(account)]).first?.decode(0, as: Int64.self) ?? 0
        }
        guard lockedFor == 0 else { throw IdentityError.tooManyAttempts(retryAfterSeconds: lockedFor) }
    }

    /// Counts a miss in the current window, outside the redemption's transaction (which rolls
    /// back); the `maxMisses`-th locks.
    func recordMiss(_ account: UUID, pool: PostgresPool) async throws {
        try await pool.withConnection { connection in
            _ = try await connection.execute("""
                INSERT INTO identity.referral_attempts AS a (account_id, misses, first_miss_at)
                VALUES ($1, 1, now())
                ON CONFLICT (account_id) DO UPDATE SET
                    misses = CASE WHEN a.first_miss_at > now() - $2::bigint * interval '1 second' THEN a.misses + 1 ELSE 1 END,
                    first_miss_at = CASE WHEN a.first_miss_at > now() - $2::bigint * interval '1 second'
                                         THEN a.first_miss_at ELSE now() END,
                    locked_until = CASE WHEN a.first_miss_at > now() - $2::bigint * interval '1 second' AND a.misses + 1 >= $3
                                        THEN now() + $4::bigint * interval '1 second' ELSE a.locked_until END
                """, [.uuid(account), .int64(window), .int32(Int32(maxMisses)), .int64(lockout)])
        }
    }

    static let migration = Migration(version: 46, name: "referral code attempts", sql: """
        CREATE TABLE identity.referral_attempts (
            account_id uuid PRIMARY KEY REFERENCES identity.accounts (id) ON DELETE CASCADE,
            misses integer NOT NULL,
            first_miss_at timestamptz NOT NULL,
            locked_until timestamptz
        );
        """)
}
