import Auth
import Contracts
import Postgres
import RPC

/// JoinWaitlist, GetWaitlistPosition (public) and GetWaitlistCount (hosts and admins) of apps
/// with a public email waitlist.
extension MembershipService {
    /// Roles that may see their app's waitlist count.
    static let waitlistCountRoles: Set<String> = ["host", Authorization.adminRole]

    func joinWaitlist(_ request: Membership.JoinWaitlistRequest, context: ServerCallContext) async throws
        -> Membership.WaitlistEntry {
        let (app, waitlist) = try publicWaitlist(app: request.app)
        let email = try EmailAddress(request.email)
        let code = request.referralCode.isEmpty ? nil : try ReferralCodeFormat.normalize(request.referralCode)
        return try await pool.withTransaction { connection in
            try await waitlist.join(app: app, email: email, referralCode: code, on: connection)
        }
    }

    func getWaitlistPosition(_ request: Membership.GetWaitlistPositionRequest, context: ServerCallContext) async throws
        -> Membership.WaitlistEntry {
        let (app, waitlist) = try publicWaitlist(app: request.app)
        let email = try EmailAddress(request.email)
        let code = try ReferralCodeFormat.normalize(request.referralCode)
        let entry = try await pool.withConnection { connection in
            try await waitlist.find(app: app, email: email, referralCode: code, on: connection)
        }
        guard let entry else { throw MembershipError.waitlistEntryNotFound }
        return entry
    }

    func getWaitlistCount(_ request: Membership.GetWaitlistCountRequest, context: ServerCallContext) async throws
        -> Membership.WaitlistCount {
        let caller = try context.requireAccount()
        let (app, waitlist) = try publicWaitlist(app: caller.app)
        let count = try await pool.withConnection { connection in
            _ = try await Authorization.requireRole(Self.waitlistCountRoles, caller, on: connection)
            return try await waitlist.count(app: app, on: connection)
        }
        return Membership.WaitlistCount(count: count)
    }

    /// The app's public waitlist; FAILED_PRECONDITION `PUBLIC_WAITLIST_NOT_OFFERED` if it has
    /// none, INVALID_ARGUMENT `UNKNOWN_APP` for an app we do not serve.
    private func publicWaitlist(app: String) throws -> (app: String, waitlist: PublicWaitlistStore) {
        let policy = try settings.apps.policy(for: app)
        guard let waitlist = policy.publicWaitlist else { throw MembershipError.publicWaitlistNotOffered }
        return (policy.id, PublicWaitlistStore(policy: waitlist))
    }
}
