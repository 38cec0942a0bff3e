import Foundation
import Postgres

/// Rows of `identity.phone_codes`: the one live code per app and number, its failed attempts,
/// and the send throttle. A row outlives its code (the hash is cleared once used) so the
/// throttle still counts.
struct PhoneCodeStore: Sendable {
    let settings: PhoneCodeSettings
    let codes: OneTimeCode

    /// What asking for a code led to.
    enum Issue: Sendable {
        /// Send `code`; it works until `expiresAt`.
        case issued(code: String, expiresAt: Date)
        case throttled(retryAfterSeconds: Int64)
    }

    /// Stores a new code for the number, replacing any earlier one, unless one was sent less
    /// than `resendInterval` ago or `maxSendsPerHour` were sent in the current hour.
    ///
    /// One upsert decides and writes under the row's lock, so concurrent requests for one
    /// number cannot both slip under the limits.
    func issue(app: String, phone: PhoneNumber, on connection: Connection) async throws -> Issue {
        let code = OneTimeCode.make()
        let salt = OneTimeCode.makeSalt()
        let rows = try await connection.query("""
            INSERT INTO identity.phone_codes AS c
                (app, phone, code_salt, code_hash, expires_at, failed_attempts, last_sent_at, window_started_at,
                 sends_in_window)
            VALUES ($1, $2, $3, $4, now() + $5::bigint * interval '1 second', 0, now(), now(), 1)
            ON CONFLICT (app, phone) DO UPDATE SET
                code_salt = excluded.code_salt, code_hash = excluded.code_hash, expires_at = excluded.expires_at,
                failed_attempts = 0, last_sent_at = now(),
                window_started_at = CASE WHEN c.window_started_at <= now() - interval '1 hour'
                                         THEN now() ELSE c.window_started_at END,
                sends_in_window = CASE WHEN c.window_started_at <= now() - interval '1 hour'
                                       THEN 1 ELSE c.sends_in_window + 1 END
            WHERE c.last_sent_at <= now() - $6::bigint * interval '1 second'
              AND (c.window_started_at <= now() - interval '1 hour' OR c.sends_in_window < $7)
            RETURNING expires_at
            """, [.text(app), .text(phone.value), .bytea(salt), .bytea(codes.hash(code, salt: salt, app: app, phone: phone)),
                  .int64(settings.lifetime), .int64(settings.resendInterval), .int32(Int32(clamping: settings.maxSendsPerHour))])
        if let row = rows.first {
            return .issued(code: code, expiresAt: try row.decode(0))
        }
        let wait = try await connection.query("""
            SELECT GREATEST(1,
                CASE WHEN last_sent_at > now() - $3::bigint * interval '1 second'
                     THEN ceil(extract(epoch FROM last_sent_at + $3::bigint * interval '1 second' - now())) ELSE 0 END,
                CASE WHEN window_started_at > now() - interval '1 hour' AND sends_in_window >= $4
                     THEN ceil(extract(epoch FROM window_started_at + interval '1 hour' - now())) ELSE 0 END)::bigint
            FROM identity.phone_codes WHERE app = $1 AND phone = $2
            """, [.text(app), .text(phone.value), .int64(settings.resendInterval),
                  .int32(Int32(clamping: settings.maxSendsPerHour))])
        return .throttled(retryAfterSeconds: try wait.first?.decode(0, as: Int64.self) ?? 1)
    }

    /// Spends the number's code if `code` is it, in the caller's transaction; otherwise the
    /// reason, with a wrong guess counted. Commit in both cases: a wrong guess must stay
    /// counted, so callers return the rejection rather than throw it inside the transaction.
    ///
    /// The row is locked first, so of two concurrent checks of the right code exactly one
    /// accepts; the other then finds no live code.
    func consume(app: String, phone: PhoneNumber, code: String, on connection: Connection) async throws -> AccountError? {
        let rows = try await connection.query("""
            SELECT code_salt, code_hash, expires_at > now(), failed_attempts FROM identity.phone_codes
            WHERE app = $1 AND phone = $2 FOR UPDATE
            """, [.text(app), .text(phone.value)])
        guard let row = rows.first, let salt = try row.decode(0, as: [UInt8]?.self),
              let stored = try row.decode(1, as: [UInt8]?.self) else { return .noActiveCode }
        let failed: Int32 = try row.decode(3)
        guard failed < settings.maxAttempts else { return .codeAttemptsExhausted }
        guard try row.decode(2, as: Bool.self) else { return .codeExpired }
        if codes.matches(code, stored: stored, salt: salt, app: app, phone: phone) {
            _ = try await connection.execute("""
                UPDATE identity.phone_codes SET code_salt = NULL, code_hash = NULL, expires_at = NULL, failed_attempts = 0
                WHERE app = $1 AND phone = $2
                """, [.text(app), .text(phone.value)])
            return nil
        }
        _ = try await connection.execute("""
            UPDATE identity.phone_codes SET failed_attempts = failed_attempts + 1 WHERE app = $1 AND phone = $2
            """, [.text(app), .text(phone.value)])
        return .invalidCode(attemptsRemaining: max(0, settings.maxAttempts - Int(failed) - 1))
    }

    /// Rows whose last code went out more than this long ago are deleted: every code and the
    /// hourly throttle are over by then, and the number is personal data we no longer need.
    static let retention: Int64 = 24 * 3600

    /// Deletes up to `limit` stale rows, oldest first; each send does a little of this, so the
    /// table holds about a day of numbers without a scheduled job.
    func purgeStale(limit: Int = 100, on connection: Connection) async throws {
        _ = try await connection.execute("""
            DELETE FROM identity.phone_codes WHERE (app, phone) IN (
                SELECT app, phone FROM identity.phone_codes
                WHERE last_sent_at < now() - $1::bigint * interval '1 second'
                ORDER BY last_sent_at LIMIT $2 FOR UPDATE SKIP LOCKED)
            """, [.int64(Self.retention), .int64(Int64(limit))])
    }

    /// Forgets the number's code and throttle (its account was deleted).
    static func forget(app: String, phone: String, on connection: Connection) async throws {
        _ = try await connection.execute(
            "DELETE FROM identity.phone_codes WHERE app = $1 AND phone = $2", [.text(app), .text(phone)])
    }
}
