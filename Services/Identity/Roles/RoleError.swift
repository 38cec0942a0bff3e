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
            RPCError(code: .invalidArgument, message: "this app has no such role", reason: "UNKNOWN_ROLE",
                     details: ["role": String(role.prefix(64))])
        case .applicationsNotOffered:
            RPCError(code: .failedPrecondition, message: "this app takes no applications",
                     reason: "APPLICATIONS_NOT_OFFERED")
        case .roleTransitionNotAllowed(let from):
            RPCError(code: .failedPrecondition, message: "your role cannot apply", reason: "ROLE_TRANSITION_NOT_ALLOWED",
                     details: ["role": from])
        case .cannotChangeOwnRole:
            RPCError(code: .failedPrecondition, message: "an admin cannot change its own role",
                     reason: "CANNOT_CHANGE_OWN_ROLE")
        }
    }
}
