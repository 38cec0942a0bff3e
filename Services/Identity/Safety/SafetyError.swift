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
            RPCError(code: .invalidArgument, message: "you cannot block yourself", reason: "CANNOT_BLOCK_SELF")
        case .cannotReportSelf:
            RPCError(code: .invalidArgument, message: "you cannot report yourself", reason: "CANNOT_REPORT_SELF")
        case .invalidReason:
            RPCError(code: .invalidArgument, message: "choose a reason for the report", reason: "INVALID_REASON")
        case .invalidStatus:
            RPCError(code: .invalidArgument, message: "unknown report status", reason: "INVALID_STATUS")
        case .invalidReportID:
            RPCError(code: .invalidArgument, message: "report_id is not a UUID", reason: "INVALID_REPORT_ID")
        case .reportNotFound:
            RPCError(code: .notFound, message: "no such report", reason: "REPORT_NOT_FOUND")
        case .invalidReportTransition(let from, let action):
            RPCError(code: .failedPrecondition, message: "a \(from.rawValue) report cannot be \(action.rawValue)",
                     reason: "INVALID_REPORT_TRANSITION", details: ["status": from.rawValue, "action": action.rawValue])
        }
    }
}
