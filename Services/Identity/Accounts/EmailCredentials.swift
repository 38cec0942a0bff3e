import Contracts
import CryptoCore
import Foundation
import Postgres
import Runtime

/// Email+password credentials: scrypt hashes (per-hash random salt, constant-time compare in
/// `PasswordHash.verify`) and a lock-out after repeated failures.
struct EmailCredentials: Sendable {
    let parameters: PasswordHash.Parameters
    let maxFailures: Int
    let failureWindow: Int64
    let lockoutDuration: Int64

    /// Longest password accepted, in bytes: bounds the work one request can cause.
    static let maximumPasswordBytes = 1024

    /// scrypt takes ~0.17 s of CPU: it runs here, one hash per core at a time, never on the
    /// event loop that serves the call (that would stall every stream of the loop).
    static let hashing = BlockingWorkPool(threads: ProcessInfo.processInfo.activeProcessorCount, name: "rv-scrypt")

    /// Checks a new password against the app's policy and hashes it (slow: ~0.1 s).
    func hashNewPassword(_ password: String, policy: AppPolicy) async throws -> String {
        guard password.count >= policy.minimumPasswordLength else {
            throw IdentityError.weakPassword(minimumLength: policy.minimumPasswordLength)
        }
        guard password.utf8.count <= Self.maximumPasswordBytes else { throw IdentityError.passwordTooLong }
        let parameters = self.parameters
        return try await Self.hashing.run { try PasswordHash.make(password: password, parameters: parameters) }
    }

    /// Adds the credential; ALREADY_EXISTS `EMAIL_TAKEN` if the app has the email already.
    func insert(account: Identity.Account, email: EmailAddress, passwordHash: String, on connection: Connection) async throws {
        let inserted = try await connection.execute("""
            INSERT INTO identity.email_credentials (account_id, app, email, password_hash) VALUES ($1, $2, $3, $4)
            ON CONFLICT (app, email) DO NOTHING
            """, [.uuid(UUID(uuidString: account.id)), .text(account.app), .text(email.value), .text(passwordHash)])
        guard inserted == 1 else { throw IdentityError.emailTaken }
    }

    /// The account whose email and password these are; otherwise UNAUTHENTICATED
    /// `INVALID_CREDENTIALS`, or RESOURCE_EXHAUSTED `TOO_MANY_ATTEMPTS` while locked.
    ///
    /// The hash is checked outside any transaction; the failure is then counted with one
    /// atomic UPDATE. An unknown email costs the same scrypt work as a wrong password.
    func authenticate(app: String, email: EmailAddress, password: String, pool: PostgresPool) async throws -> UUID {
        let rows = try await pool.withConnection { connection in
            try await connection.query("""
                SELECT account_id, password_hash, \(FailureLockout.secondsLeft("locked_until"))
                FROM identity.email_credentials WHERE app = $1 AND email = $2
                """, [.text(app), .text(email.value)])
        }
        guard let row = rows.first else {
            _ = try? await Self.hashing.run { try PasswordHash.verify(password: password, encoded: Self.decoyHash) }
            throw IdentityError.invalidCredentials
        }
        let accountID: UUID = try row.decode(0)
        let lockedFor: Int64 = try row.decode(2)
        guard lockedFor == 0 else { throw IdentityError.tooManyAttempts(retryAfterSeconds: lockedFor) }
        let encoded: String = try row.decode(1)
        var valid = false
        if password.utf8.count <= Self.maximumPasswordBytes {
            valid = try await Self.hashing.run { try PasswordHash.verify(password: password, encoded: encoded) }
        }
        if valid {
            try await pool.withConnection { connection in
                _ = try await connection.execute("""
                    UPDATE identity.email_credentials SET failed_attempts = 0, first_failed_at = NULL, locked_until = NULL
                    WHERE account_id = $1 AND failed_attempts > 0
                    """, [.uuid(accountID)])
            }
            return accountID
        }
        try await recordFailure(accountID: accountID, pool: pool)
        throw IdentityError.invalidCredentials
    }

    /// Counts a failure in the current window; the `maxFailures`-th locks sign-in.
    private func recordFailure(accountID: UUID, pool: PostgresPool) async throws {
        try await pool.withConnection { connection in
            let lockout = FailureLockout(maxFailures: maxFailures, window: failureWindow, lockout: lockoutDuration)
            _ = try await connection.execute("""
                UPDATE identity.email_credentials SET
                \(FailureLockout.counting(row: "", count: "failed_attempts", since: "first_failed_at", lockedUntil: "locked_until"))
                WHERE account_id = $1
                """, [.uuid(accountID)] + lockout.parameters)
        }
    }

    /// A hash of a random password, verified against when the email is unknown.
    static let decoyHash: String = {
        // The parameters are the defaults, within PasswordHash's bounds; make cannot fail on them.
        (try? PasswordHash.make(password: Base64URL.encode(SecureRandom.bytes(16)))) ?? ""
    }()
}
