import Postgres

/// Failures counted in a window, the `maxFailures`-th within `window` seconds locking for
/// `lockout` seconds: email sign-in (`EmailCredentials`) and referral codes
/// (`ReferralAttempts`), each on columns of its own table.
struct FailureLockout: Sendable {
    var maxFailures: Int
    var window: Int64
    var lockout: Int64

    /// SQL assignments that count one more failure in the `count`, `since` and `lockedUntil`
    /// columns, read through `row` (a table alias with its dot, or "" in a plain UPDATE):
    /// a failure after the window starts a new one. Binds $2 to $4 (`parameters`).
    static func counting(row: String, count: String, since: String, lockedUntil: String) -> String {
        let inWindow = "\(row)\(since) > now() - $2::bigint * interval '1 second'"
        return """
            \(count) = CASE WHEN \(inWindow) THEN \(row)\(count) + 1 ELSE 1 END,
            \(since) = CASE WHEN \(inWindow) THEN \(row)\(since) ELSE now() END,
            \(lockedUntil) = CASE WHEN \(inWindow) AND \(row)\(count) + 1 >= $3
                                  THEN now() + $4::bigint * interval '1 second' ELSE \(row)\(lockedUntil) END
            """
    }

    /// $2 to $4 of `counting`'s SQL.
    var parameters: [PostgresValue] { [.int64(window), .int32(Int32(maxFailures)), .int64(lockout)] }

    /// SQL for the whole seconds left until `lockedUntil`, 0 when not locked.
    static func secondsLeft(_ lockedUntil: String) -> String {
        "GREATEST(0, ceil(extract(epoch FROM \(lockedUntil) - now())))::bigint"
    }
}
