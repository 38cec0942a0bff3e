import Auth
import Contracts
import RPC

/// BecomeApplicant and SetRole: the role model is the app's policy (`AppPolicy.roles`,
/// `applicantRole`); the caller's power is read from the database (`Authorization`).
extension ProfilesService {
    private var roles: RoleStore { RoleStore(outbox: outbox, revocationList: revocationList) }

    func becomeApplicant(_ request: Profiles.BecomeApplicantRequest, context: ServerCallContext) async throws
        -> Profiles.RoleAssignment {
        try await becomeApplicant(caller: try context.requireAccount())
    }

    func setRole(_ request: Profiles.SetRoleRequest, context: ServerCallContext) async throws
        -> Profiles.RoleAssignment {
        try await setRole(request, caller: try context.requireAccount())
    }

    /// Default role → applicant; an applicant asking again changes nothing. Production's
    /// `ApplicationSubmitted` event will take the same path once it exists.
    private func becomeApplicant(caller: AuthenticatedAccount) async throws -> Profiles.RoleAssignment {
        let id = try caller.accountUUID()
        let policy = try apps.policy(for: caller.app)
        guard let applicant = policy.applicantRole else { throw RoleError.applicationsNotOffered }
        return try await pool.withTransaction { connection in
            guard let current = try await roles.lockedRole(of: id, app: caller.app, on: connection) else {
                throw IdentityError.accountNotFound
            }
            guard current == policy.defaultRole || current == applicant else {
                throw RoleError.roleTransitionNotAllowed(from: current)
            }
            return try await roles.change(id, app: caller.app, from: current, to: applicant, changedBy: id, on: connection)
        }
    }

    /// An admin sets another account's role to one of the app's roles.
    private func setRole(_ request: Profiles.SetRoleRequest, caller: AuthenticatedAccount) async throws
        -> Profiles.RoleAssignment {
        let adminID = try caller.accountUUID()
        let policy = try apps.policy(for: caller.app)
        return try await pool.withTransaction { connection in
            try await Authorization.requireAdmin(caller, on: connection)
            let id = try LookupError.accountID(request.accountID)
            let role = request.role.trimmedOfWhitespace
            guard policy.roles.contains(role) else { throw RoleError.unknownRole(role) }
            guard id != adminID else { throw RoleError.cannotChangeOwnRole }
            guard let current = try await roles.lockedRole(of: id, app: caller.app, on: connection) else {
                throw LookupError.userNotFound
            }
            return try await roles.change(id, app: caller.app, from: current, to: role, changedBy: adminID,
                                          on: connection)
        }
    }
}
