import Foundation
import Postgres
import Runtime

/// What Membership reads of an account, and its changes of membership status.
struct MemberAccount: Sendable {
    var id: UUID
    var app: String
    var username: String
    var membershipStatus: String
}

/// Rows of `identity.accounts` as Membership uses them: locked before a status changes, so two
/// decisions about one account happen one after the other.
enum MemberAccounts {
    /// The account, locked until the transaction ends; nil if it does not exist (in `app`, when
    /// given).
    static func lock(_ id: UUID, app: String?, on connection: Connection) async throws -> MemberAccount? {
        let rows = try await connection.query("""
            SELECT app, username, membership_status FROM identity.accounts
            WHERE id = $1 AND ($2::text IS NULL OR app = $2) FOR UPDATE
            """, [.uuid(id), .text(app)])
        return try rows.first.map { row in
            MemberAccount(id: id, app: try row.decode(0), username: try row.decode(1), membershipStatus: try row.decode(2))
        }
    }

    /// Whether the account exists in `app`.
    static func exists(_ id: UUID, app: String, on connection: Connection) async throws -> Bool {
        try await !connection.query("SELECT 1 FROM identity.accounts WHERE id = $1 AND app = $2",
                                    [.uuid(id), .text(app)]).isEmpty
    }

    /// Sets the account's membership status and records the decision (`identity.membership_decisions`);
    /// returns when it was made. `method` is "committee" or "referral"; `decidedBy` the admin or
    /// the referrer.
    @discardableResult
    static func decide(_ id: UUID, app: String, status: String, method: String, reason: String, decidedBy: UUID,
                       on connection: Connection) async throws -> Date {
        _ = try await connection.execute("UPDATE identity.accounts SET membership_status = $2 WHERE id = $1",
                                         [.uuid(id), .text(status)])
        let rows = try await connection.query("""
            INSERT INTO identity.membership_decisions (id, account_id, app, decision, method, reason, decided_by)
            VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING decided_at
            """, [.uuid(UUID.random()), .uuid(id), .text(app), .text(status == MembershipStatus.active ? "approved" : "rejected"),
                  .text(method), .text(reason), .uuid(decidedBy)])
        return try rows[0].decode(0)
    }
}
