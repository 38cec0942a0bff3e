import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// The waitlist of invite-only apps: a member's own position, and the committee (the app's
/// admins) listing, approving and rejecting waitlisted accounts.
extension MembershipService {
    /// Longest rejection reason kept, in characters.
    static let maximumReasonLength = 500
    /// Page size of ListWaitlist when the request names none, and the largest allowed.
    static let defaultWaitlistPageSize = 50
    static let maximumWaitlistPageSize = 200

    func getMyWaitlistPosition(_ request: Membership.GetMyWaitlistPositionRequest, context: ServerCallContext) async throws
        -> Membership.WaitlistPosition {
        let caller = try context.requireAccount()
        let accountID = try caller.accountUUID()
        let position = try await pool.withConnection { connection in
            try await MemberWaitlist.position(of: accountID, app: caller.app, on: connection)
        }
        guard let position else { throw MembershipError.notWaitlisted }
        return position
    }

    func listWaitlist(_ request: Membership.ListWaitlistRequest, context: ServerCallContext) async throws
        -> Membership.ListWaitlistResponse {
        let caller = try context.requireAccount()
        let size = request.pageSize == 0 ? Self.defaultWaitlistPageSize
            : min(max(Int(request.pageSize), 1), Self.maximumWaitlistPageSize)
        let token = request.pageToken.isEmpty ? nil : try WaitlistPageToken(parsing: request.pageToken)
        let page = try await pool.withConnection { connection in
            try await Authorization.requireAdmin(caller, on: connection)
            return try await MemberWaitlist.page(app: caller.app, after: token, limit: size, on: connection)
        }
        return Membership.ListWaitlistResponse(members: page.members, nextPageToken: page.next?.text ?? "")
    }

    func approveMember(_ request: Membership.ApproveMemberRequest, context: ServerCallContext) async throws
        -> Membership.MembershipDecision {
        try await decide(request.accountID, approve: true, reason: "", caller: try context.requireAccount())
    }

    func rejectMember(_ request: Membership.RejectMemberRequest, context: ServerCallContext) async throws
        -> Membership.MembershipDecision {
        let reason = request.reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty, reason.count <= Self.maximumReasonLength else {
            throw MembershipError.invalidReason(maximumLength: Self.maximumReasonLength)
        }
        return try await decide(request.accountID, approve: false, reason: reason, caller: try context.requireAccount())
    }

    /// The committee's decision on a waitlisted account of the admin's app, with its event.
    private func decide(_ accountText: String, approve: Bool, reason: String, caller: AuthenticatedAccount) async throws
        -> Membership.MembershipDecision {
        let adminID = try caller.accountUUID()
        let accountID = try MembershipInput.accountID(accountText)
        return try await pool.withTransaction { connection in
            try await Authorization.requireAdmin(caller, on: connection)
            guard let member = try await MemberAccounts.lock(accountID, app: caller.app, on: connection) else {
                throw MembershipError.memberNotFound
            }
            guard member.membershipStatus == MembershipStatus.waitlisted else { throw MembershipError.notWaitlisted }
            let status = approve ? MembershipStatus.active : MembershipStatus.rejected
            let decidedAt = try await MemberAccounts.decide(accountID, app: caller.app, status: status, method: "committee",
                                                            reason: reason, decidedBy: adminID, on: connection)
            let id = accountID.uuidString.lowercased()
            let event: OutboxEvent
            if approve {
                var approved = Membership.MembershipApproved()
                approved.accountID = id
                approved.method = .committee
                approved.approvedByAccountID = adminID.uuidString.lowercased()
                approved.approvedAt = Timestamp(decidedAt)
                event = OutboxEvent(type: "MembershipApproved", app: caller.app, aggregateID: id,
                                    payload: approved.serializedBytes())
            } else {
                var rejected = Membership.MembershipRejected()
                rejected.accountID = id
                rejected.reason = reason
                rejected.rejectedByAccountID = adminID.uuidString.lowercased()
                rejected.rejectedAt = Timestamp(decidedAt)
                event = OutboxEvent(type: "MembershipRejected", app: caller.app, aggregateID: id,
                                    payload: rejected.serializedBytes())
            }
            try await outbox.appendAtCommit(event, on: connection)
            try await TokenRevocations(outbox: outbox, list: revocationList).claimsChanged(accountID: accountID, app: caller.app,
                                                                     changed: "membership_status", on: connection)
            return Membership.MembershipDecision(accountID: id, membershipStatus: status, decidedAt: Timestamp(decidedAt))
        }
    }
}
