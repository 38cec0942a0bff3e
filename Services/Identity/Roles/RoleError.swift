import Contracts
import RPC

/// Role changes that the app's role model refuses.
enum RoleError: Error, Sendable, Equatable, RPCErrorConvertible {
    case unknownRole(String)
    case applicationsNotOffered
    case roleTransitionNotAllowed(from: String)
    case cannotChangeOwnRole

    var rpcError: RPCError {
        switch self {
        case .unknownRole(let role):
            RPCError(Identity.ErrorReason.unknownRole, message: "this app has no such role",
                     details: ["role": String(role.prefix(64))])
        case .applicationsNotOffered:
            RPCError(Identity.ErrorReason.applicationsNotOffered, message: "this app takes no applications")
        case .roleTransitionNotAllowed(let from):
            RPCError(Identity.ErrorReason.roleTransitionNotAllowed, message: "your role cannot apply",
                     details: ["role": from])
        case .cannotChangeOwnRole:
            RPCError(Identity.ErrorReason.cannotChangeOwnRole, message: "an admin cannot change its own role")
        }
    }
}
