import Contracts
import Foundation
import Postgres
import Runtime

/// Public email waitlists (`identity.waitlist_entries`): sign-up without an account, each entry
/// with its own referral code.
///
/// Order: an entry's standing is its join number (1, 2, 3… per app, in commit order) minus
/// `placesPerReferral` for each entry it referred; lower standing goes first, then more
/// referrals, then the earlier join. Join numbers are unique, so positions are exactly 1…n,
/// and with no other referrals in between each referral moves an entry up exactly
/// `placesPerReferral` places.
///
/// Joins of one app take its `waitlist_counters` row lock: they commit one at a time, join
/// numbers have no gaps, and two joins with one email make one entry.
struct PublicWaitlistStore: Sendable {
    let policy: PublicWaitlistPolicy

    /// The entry of `email`, created if new (with a credit to the referrer of `referralCode`).
    /// A known email returns its entry unchanged: a referral code then is ignored.
    /// NOT_FOUND `REFERRAL_CODE_NOT_FOUND` for a new email with an unknown code.
    func join(app: String, email: EmailAddress, referralCode: String?, on connection: Connection) async throws
        -> Membership.WaitlistEntry {
        if let id = try await entryID(app: app, email: email, on: connection) {
            return try await entry(id, on: connection)
        }
        _ = try await connection.execute(
            "INSERT INTO identity.waitlist_counters (app, joined) VALUES ($1, 0) ON CONFLICT DO NOTHING", [.text(app)])
        let counter = try await connection.query(
            "SELECT joined FROM identity.waitlist_counters WHERE app = $1 FOR UPDATE", [.text(app)])
        // Another join of this email may have committed while this one waited for the lock.
        if let id = try await entryID(app: app, email: email, on: connection) {
            return try await entry(id, on: connection)
        }
        var referrer: UUID?
        if let referralCode {
            let rows = try await connection.query(
                "SELECT id FROM identity.waitlist_entries WHERE app = $1 AND referral_code = $2",
                [.text(app), .text(referralCode)])
            guard let row = rows.first else { throw MembershipError.referralCodeNotFound }
            referrer = try row.decode(0, as: UUID.self)
        }
        let joinNumber = try counter[0].decode(0, as: Int64.self) + 1  // Safe: the row was inserted above if missing.
        let id = UUID.random()
        var inserted = false
        for _ in 0..<8 where !inserted {
            inserted = try await connection.execute("""
                INSERT INTO identity.waitlist_entries (id, app, email, referral_code, join_number, referred_by)
                VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (app, referral_code) DO NOTHING
                """, [.uuid(id), .text(app), .text(email.value), .text(ReferralCodeFormat.make()), .int64(joinNumber),
                      .uuid(referrer)]) == 1
        }
        guard inserted else { throw PostgresError(code: .sqlState(.uniqueViolation), context: "no free referral code") }
        _ = try await connection.execute("UPDATE identity.waitlist_counters SET joined = $2 WHERE app = $1",
                                         [.text(app), .int64(joinNumber)])
        if let referrer {
            _ = try await connection.execute(
                "UPDATE identity.waitlist_entries SET referrals = referrals + 1 WHERE id = $1", [.uuid(referrer)])
        }
        return try await entry(id, on: connection)
    }

    /// The entry of `email` whose own code is `referralCode`; nil if there is none.
    func find(app: String, email: EmailAddress, referralCode: String, on connection: Connection) async throws
        -> Membership.WaitlistEntry? {
        let rows = try await connection.query(
            "SELECT id FROM identity.waitlist_entries WHERE app = $1 AND email = $2 AND referral_code = $3",
            [.text(app), .text(email.value), .text(referralCode)])
        guard let row = rows.first else { return nil }
        return try await entry(try row.decode(0), on: connection)
    }

    /// How many entries the app's waitlist holds.
    func count(app: String, on connection: Connection) async throws -> Int64 {
        try await connection.query("SELECT count(*) FROM identity.waitlist_entries WHERE app = $1", [.text(app)])[0]
            .decode(0)
    }

    private func entryID(app: String, email: EmailAddress, on connection: Connection) async throws -> UUID? {
        try await connection.query("SELECT id FROM identity.waitlist_entries WHERE app = $1 AND email = $2",
                                   [.text(app), .text(email.value)]).first?.decode(0)
    }

    /// The entry with its current position.
    private func entry(_ id: UUID, on connection: Connection) async throws -> Membership.WaitlistEntry {
        let rows = try await connection.query("""
            SELECT e.referral_code, e.referrals, e.joined_at,
                   (SELECT count(*) FROM identity.waitlist_entries o
                    WHERE o.app = e.app
                      AND (o.join_number - $2 * o.referrals, -o.referrals, o.join_number)
                          < (e.join_number - $2 * e.referrals, -e.referrals, e.join_number)) + 1
            FROM identity.waitlist_entries e WHERE e.id = $1
            """, [.uuid(id), .int64(Int64(policy.placesPerReferral))])
        let row = rows[0]  // Safe: `id` was read or inserted in this transaction, and entries are never deleted.
        var entry = Membership.WaitlistEntry()
        entry.referralCode = try row.decode(0)
        entry.referrals = try row.decode(1)
        entry.joinedAt = Timestamp(try row.decode(2, as: Date.self))
        entry.position = Int32(clamping: try row.decode(3, as: Int64.self))
        return entry
    }
}
