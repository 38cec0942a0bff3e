import Foundation
import Postgres

/// Wrong referral codes an account tried (`identity.referral_attempts`): a code is six letters of
/// 31, about 890 million, and unguessable only while guesses are few. The tenth miss within an
/// hour locks the account's redemptions for an hour (RESOURCE_EXHAUSTED `TOO_MANY_ATTEMPTS`); a
/// redemption that succeeds ends the account's waitlisted state, so nothing is reset.
struct ReferralAttempts: Sendable {
    var lockout = FailureLockout(maxFailures: 10, window: 3_600, lockout: 3_600)

    /// Throws `TOO_MANY_ATTEMPTS` while `account` is locked.
    func check(_ account: UUID, pool: PostgresPool) async throws {
        let lockedFor = try await pool.withConnection { connection in
            try await connection.query("""
                SELECT \(FailureLockout.secondsLeft("locked_until")) FROM identity.referral_attempts WHERE account_id = $1
                """, [.uuid(account)]).first?.decode(0, as: Int64.self) ?? 0
        }
        guard lockedFor == 0 else { throw IdentityError.tooManyAttempts(retryAfterSeconds: lockedFor) }
    }

    /// Counts a miss in the current window, outside the redemption's transaction (which rolls
    /// back); the last one allowed locks.
    func recordMiss(_ account: UUID, pool: PostgresPool) async throws {
        try await pool.withConnection { connection in
            _ = try await connection.execute("""
                INSERT INTO identity.referral_attempts AS a (account_id, misses, first_miss_at)
                VALUES ($1, 1, now())
                ON CONFLICT (account_id) DO UPDATE SET
                \(FailureLockout.counting(row: "a.", count: "misses", since: "first_miss_at", lockedUntil: "locked_until"))
                """, [.uuid(account)] + lockout.parameters)
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
