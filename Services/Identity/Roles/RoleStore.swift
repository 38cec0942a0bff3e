import Auth
import Contracts
import Foundation
import Postgres
import Runtime

/// Roles on `identity.accounts.role`: read under a row lock, changed with a `RoleChanged`
/// event in the same transaction.
struct RoleStore: Sendable {
    let outbox: Outbox
    /// This process's list of stale accounts, told at once of a role change.
    var revocationList: RevocationList? = nil

    /// The role of account `id` in `app`, locked until the transaction ends; nil when there is
    /// no such account.
    func lockedRole(of id: UUID, app: String, on connection: Connection) async throws -> String? {
        let rows = try await connection.query(
            "SELECT role FROM identity.accounts WHERE id = $1 AND app = $2 FOR UPDATE", [.uuid(id), .text(app)])
        return try rows.first?.decode(0, as: String.self)
    }

    /// Sets the role of account `id` (whose locked role is `previous`) to `role`, appending
    /// `RoleChanged`; a no-op with `changed = false` when it already has it. `changedBy` is
    /// the account that asked, nil for an operator. An admin is an active member: a waitlisted
    /// account made admin (the first admin of an invite-only app) leaves the waitlist, with a
    /// `MembershipApproved` (so discovery shows it as admitted) and stale tokens.
    func change(_ id: UUID, app: String, from previous: String, to role: String, changedBy: UUID?,
                on connection: Connection) async throws -> Profiles.RoleAssignment {
        let accountID = id.uuidString.lowercased()
        guard previous != role else {
            return Profiles.RoleAssignment(accountID: accountID, role: role, previousRole: previous, changed: false)
        }
        // The CTE reads the row as it was before the update (one snapshot per statement).
        let rows = try await connection.query("""
            WITH before AS (SELECT membership_status FROM identity.accounts WHERE id = $1 AND app = $2)
            UPDATE identity.accounts
            SET role = $3,
                membership_status = CASE WHEN $3 = $4 AND membership_status = 'waitlisted' THEN 'active'
                                         ELSE membership_status END
            WHERE id = $1 AND app = $2
            RETURNING \(UnixMicroseconds.sql("now()")), (SELECT membership_status FROM before), membership_status
            """, [.uuid(id), .text(app), .text(role), .text(Authorization.adminRole)])
        var event = Profiles.RoleChanged()
        event.accountID = accountID
        event.app = app
        event.previousRole = previous
        event.role = role
        event.changedBy = changedBy?.uuidString.lowercased() ?? ""
        event.changedAt = Timestamp(microseconds: try rows[0].decode(0))
        try await outbox.appendAtCommit(OutboxEvent(type: "RoleChanged", app: app, aggregateID: accountID,
                                                    payload: event.serializedBytes()), on: connection)
        if try rows[0].decode(1, as: String.self) == MembershipStatus.waitlisted,
           try rows[0].decode(2, as: String.self) == MembershipStatus.active {
            var approved = Membership.MembershipApproved()
            approved.accountID = accountID
            approved.method = .committee
            approved.approvedByAccountID = event.changedBy
            approved.approvedAt = event.changedAt
            try await outbox.appendAtCommit(OutboxEvent(type: "MembershipApproved", app: app, aggregateID: accountID,
                                                        payload: approved.serializedBytes()), on: connection)
        }
        try await TokenRevocations(outbox: outbox, list: revocationList).claimsChanged(accountID: id, app: app, changed: "role", on: connection)
        return Profiles.RoleAssignment(accountID: accountID, role: role, previousRole: previous, changed: true)
    }
}
