import Contracts
import RPC

/// Blocks and reports that break a rule, and the one place that decides their status and reason.
enum SafetyError: Error, Sendable, Equatable, RPCErrorConvertible {
    case cannotBlockSelf
    case cannotReportSelf
    case invalidReason
    case invalidStatus
    case invalidReportID
    case reportNotFound
    case invalidReportTransition(from: ReportState, action: ModerationAction)

    var rpcError: RPCError {
        switch self {
        case .cannotBlockSelf:
            RPCError(Identity.ErrorReason.cannotBlockSelf, message: "you cannot block yourself")
        case .cannotReportSelf:
            RPCError(Identity.ErrorReason.cannotReportSelf, message: "you cannot report yourself")
        case .invalidReason:
            RPCError(Identity.ErrorReason.invalidReason, message: "choose a reason for the report")
        case .invalidStatus:
            RPCError(Identity.ErrorReason.invalidStatus, message: "unknown report status")
        case .invalidReportID:
            RPCError(Identity.ErrorReason.invalidReportID, message: "report_id is not a UUID")
        case .reportNotFound:
            RPCError(Identity.ErrorReason.reportNotFound, message: "no such report")
        case .invalidReportTransition(let from, let action):
            RPCError(Identity.ErrorReason.invalidReportTransition, message: "a \(from.rawValue) report cannot be \(action.rawValue)", details: ["status": from.rawValue, "action": action.rawValue])
        }
    }
}
