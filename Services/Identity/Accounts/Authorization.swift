import Auth
import Contracts
import Foundation
import Postgres
import RPC

/// Role checks every Identity service shares. The role is read from the database, not the
/// access token: a revoked admin loses its power at once, not when its token expires.
enum Authorization {
    /// The role that reviews reports, works the committee queue and sets roles and tiers.
    static let adminRole = "admin"

    /// The caller's current role in its app, or UNAUTHENTICATED when the account is gone.
    static func currentRole(of caller: AuthenticatedAccount, on connection: Connection) async throws -> String {
        let rows = try await connection.query(
            "SELECT role FROM identity.accounts WHERE id = $1 AND app = $2", [.uuid(try caller.accountUUID()), .text(caller.app)])
        guard let row = rows.first else { throw IdentityError.accountNotFound }
        return try row.decode(0)
    }

    /// Throws PERMISSION_DENIED `ADMIN_ONLY` unless the caller is an admin of its app.
    static func requireAdmin(_ caller: AuthenticatedAccount, on connection: Connection) async throws {
        guard try await currentRole(of: caller, on: connection) == adminRole else {
            throw RPCError(Identity.ErrorReason.adminOnly, message: "only an admin of this app may do that")
        }
    }

    /// Throws PERMISSION_DENIED `ROLE_REQUIRED` unless the caller's role is one of `roles`.
    static func requireRole(_ roles: Set<String>, _ caller: AuthenticatedAccount, on connection: Connection) async throws -> String {
        let role = try await currentRole(of: caller, on: connection)
        guard roles.contains(role) else {
            throw RPCError(Identity.ErrorReason.roleRequired, message: "your role may not do that")
        }
        return role
    }
}
