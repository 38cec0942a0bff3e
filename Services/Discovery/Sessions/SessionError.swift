import Contracts
import RPC

/// Group sessions' failures and their gRPC status and reason (sessions.proto).
enum SessionError: Error, Sendable, Equatable, RPCErrorConvertible {
    case categoryNotFound
    case invalidJoinCode
    case invalidQuorum
    case invalidSessionID
    case invalidStatus
    case notSessionCreator
    case optionNotFound
    case sessionClosed
    case sessionFull(quorum: Int32)
    case sessionNotFound

    var rpcError: RPCError {
        switch self {
        case .categoryNotFound:
            RPCError(Discovery.ErrorReason.categoryNotFound, message: "no such category")
        case .invalidJoinCode:
            RPCError(Discovery.ErrorReason.invalidJoinCode, message: "no session has that invite code")
        case .invalidQuorum:
            RPCError(Discovery.ErrorReason.invalidQuorum, message: "quorum must be 2-5")
        case .invalidSessionID:
            RPCError(Discovery.ErrorReason.invalidSessionID, message: "session_id is not a UUID")
        case .invalidStatus:
            RPCError(Discovery.ErrorReason.invalidStatus, message: "status must be OPEN, MATCHED or CLOSED")
        case .notSessionCreator:
            RPCError(Discovery.ErrorReason.notSessionCreator, message: "only the session's creator can close it")
        case .optionNotFound:
            RPCError(Discovery.ErrorReason.optionNotFound, message: "that option is not in this session's deck")
        case .sessionClosed:
            RPCError(Discovery.ErrorReason.sessionClosed, message: "the session was closed")
        case .sessionFull(let quorum):
            RPCError(Discovery.ErrorReason.sessionFull, message: "the session is full", details: ["quorum": String(quorum)])
        case .sessionNotFound:
            RPCError(Discovery.ErrorReason.sessionNotFound, message: "no such session")
        }
    }
}
