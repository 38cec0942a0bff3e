import Auth
import Contracts
import Foundation
import Postgres
import Runtime

/// ÉLITE referral codes (`identity.referral_codes`): members create them within a monthly
/// allowance, a waitlisted account redeems one and becomes active.
struct ReferralStore: Sendable {
    let outbox: Outbox
    /// This process's list of stale accounts, told at once of a membership change.
    var revocationList: RevocationList? = nil

    /// This month's allowance of an owner (calendar month in UTC).
    struct Allowance: Sendable {
        var perMonth: Int
        var used: Int
        /// The first instant of next month, UTC.
        var resetsAt: Date

        var remaining: Int { max(0, perMonth - used) }
    }

    /// What a redemption did.
    struct Redemption: Sendable {
        var referrerID: UUID
        var usedAt: Date
    }

    /// A new code of `ownerID`, an active member of `app`, within the allowance of its
    /// effective tier. FAILED_PRECONDITION `NOT_ACTIVE_MEMBER`, RESOURCE_EXHAUSTED
    /// `REFERRAL_ALLOWANCE_EXHAUSTED`. The owner's row lock makes concurrent creations count
    /// one after the other.
    func create(ownerID: UUID, app: String, expiresAt: Date?, on connection: Connection) async throws -> Membership.ReferralCode {
        guard let owner = try await MemberAccounts.lock(ownerID, app: app, on: connection) else {
            throw IdentityError.accountNotFound
        }
        guard owner.membershipStatus == MembershipStatus.active else { throw MembershipError.notActiveMember }
        let allowance = try await allowance(ownerID: ownerID, app: app, on: connection)
        guard allowance.used < allowance.perMonth else {
            throw MembershipError.referralAllowanceExhausted(allowance: allowance.perMonth, resetsAt: allowance.resetsAt)
        }
        for _ in 0..<8 {
            let code = ReferralCodeFormat.make()
            let rows = try await connection.query("""
                INSERT INTO identity.referral_codes (app, code, owner_id, expires_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (app, code) DO NOTHING RETURNING created_at
                """, [.text(app), .text(code), .uuid(ownerID), .timestamptz(expiresAt)])
            if let row = rows.first {
                var created = Membership.ReferralCode()
                created.code = code
                created.createdAt = Timestamp(try row.decode(0, as: Date.self))
                created.expiresAt = expiresAt.map(Timestamp.init)
                return created
            }
        }
        throw PostgresError(code: .sqlState(.uniqueViolation), context: "no free referral code")
    }

    /// The owner's allowance this month: its effective tier's `referral_codes_per_month`, and
    /// the codes it created since the first of the month (UTC).
    func allowance(ownerID: UUID, app: String, on connection: Connection) async throws -> Allowance {
        let tier = try await TierGrants.effective(accountID: ownerID, app: app, on: connection)
        let perMonth = try await TierCatalog.find(app: app, tier: tier.name, on: connection)?
            .entitlements?.referralCodesPerMonth ?? 0
        let rows = try await connection.query("""
            WITH month AS (SELECT date_trunc('month', now() AT TIME ZONE 'UTC') AS start)
            SELECT (SELECT count(*) FROM identity.referral_codes
                    WHERE owner_id = $1 AND created_at >= (SELECT start FROM month) AT TIME ZONE 'UTC'),
                   (SELECT start + interval '1 month' FROM month) AT TIME ZONE 'UTC'
            """, [.uuid(ownerID)])
        return Allowance(perMonth: Int(perMonth), used: try rows[0].decode(0), resetsAt: try rows[0].decode(1))
    }

    /// The owner's codes, newest first, with who used them.
    func list(ownerID: UUID, on connection: Connection) async throws -> [Membership.ReferralCode] {
        try await connection.query("""
            SELECT c.code, c.created_at, c.expires_at, c.used_at, c.used_by, u.username
            FROM identity.referral_codes c LEFT JOIN identity.accounts u ON u.id = c.used_by
            WHERE c.owner_id = $1 ORDER BY c.created_at DESC, c.code
            """, [.uuid(ownerID)]).map { row in
            var code = Membership.ReferralCode()
            code.code = try row.decode(0)
            code.createdAt = Timestamp(try row.decode(1, as: Date.self))
            code.expiresAt = try row.decode(2, as: Date?.self).map(Timestamp.init)
            code.usedAt = try row.decode(3, as: Date?.self).map(Timestamp.init)
            code.used = code.usedAt != nil
            code.usedByAccountID = try row.decode(4, as: UUID?.self)?.uuidString.lowercased() ?? ""
            code.usedByUsername = try row.decode(5, as: String?.self) ?? ""
            return code
        }
    }

    /// Redeems `code` for `account`, a waitlisted account, inside the caller's transaction: the
    /// code is used, the account becomes active, and `ReferralUsed` (for the referrer) and
    /// `MembershipApproved` are appended to the outbox. Sign-up can call it in its own
    /// transaction, after inserting the account.
    ///
    /// The account's row is locked first, then the code's: of two concurrent redemptions of one
    /// code the second waits, then finds it used (FAILED_PRECONDITION `REFERRAL_CODE_USED`); one
    /// account redeeming two codes at once gets `NOT_WAITLISTED` for the second. Other
    /// failures: `INVALID_REFERRAL_CODE`, `REFERRAL_CODE_NOT_FOUND`, `REFERRAL_CODE_EXPIRED`,
    /// `OWN_REFERRAL_CODE`, `REFERRER_NOT_ACTIVE`, UNAUTHENTICATED `ACCOUNT_NOT_FOUND`.
    @discardableResult
    func redeem(code text: String, account: UUID, on connection: Connection) async throws -> Redemption {
        let code = try ReferralCodeFormat.normalize(text)
        guard let redeemer = try await MemberAccounts.lock(account, app: nil, on: connection) else {
            throw IdentityError.accountNotFound
        }
        guard redeemer.membershipStatus == MembershipStatus.waitlisted else { throw MembershipError.notWaitlisted }
        let rows = try await connection.query("""
            SELECT c.owner_id, c.used_at IS NOT NULL, c.expires_at IS NOT NULL AND c.expires_at <= now(),
                   o.membership_status, now()
            FROM identity.referral_codes c JOIN identity.accounts o ON o.id = c.owner_id
            WHERE c.app = $1 AND c.code = $2
            FOR UPDATE OF c
            """, [.text(redeemer.app), .text(code)])
        guard let row = rows.first else { throw MembershipError.referralCodeNotFound }
        let referrerID: UUID = try row.decode(0)
        guard try !row.decode(1, as: Bool.self) else { throw MembershipError.referralCodeUsed }
        guard try !row.decode(2, as: Bool.self) else { throw MembershipError.referralCodeExpired }
        guard referrerID != account else { throw MembershipError.ownReferralCode }
        guard try row.decode(3, as: String.self) == MembershipStatus.active else { throw MembershipError.referrerNotActive }
        let usedAt: Date = try row.decode(4)

        _ = try await connection.execute("""
            UPDATE identity.referral_codes SET used_at = $3, used_by = $4 WHERE app = $1 AND code = $2
            """, [.text(redeemer.app), .text(code), .timestamptz(usedAt), .uuid(account)])
        try await MemberAccounts.decide(account, app: redeemer.app, status: MembershipStatus.active, method: "referral",
                                        reason: "", decidedBy: referrerID, on: connection)

        var used = Membership.ReferralUsed()
        used.code = code
        used.referrerAccountID = referrerID.uuidString.lowercased()
        used.redeemerAccountID = account.uuidString.lowercased()
        used.usedAt = Timestamp(usedAt)
        try await outbox.appendAtCommit(OutboxEvent(type: "ReferralUsed", app: redeemer.app, aggregateID: used.referrerAccountID,
                                                    payload: used.serializedBytes()), on: connection)
        var approved = Membership.MembershipApproved()
        approved.accountID = used.redeemerAccountID
        approved.method = .referral
        approved.approvedByAccountID = used.referrerAccountID
        approved.approvedAt = used.usedAt
        try await outbox.appendAtCommit(OutboxEvent(type: "MembershipApproved", app: redeemer.app, aggregateID: approved.accountID,
                                                    payload: approved.serializedBytes()), on: connection)
        try await TokenRevocations(outbox: outbox, list: revocationList).claimsChanged(accountID: account, app: redeemer.app,
                                                                 changed: "membership_status", on: connection)
        return Redemption(referrerID: referrerID, usedAt: usedAt)
    }
}
