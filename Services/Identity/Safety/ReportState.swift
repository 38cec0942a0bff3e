import Contracts

/// Where a report is in the moderation queue, as stored (`identity.reports.status`).
enum ReportState: String, Sendable, CaseIterable {
    case pending
    case reviewed
    case resolved

    /// The state `action` leads to: pending → reviewed → resolved, nothing else
    /// (FAILED_PRECONDITION `INVALID_REPORT_TRANSITION`).
    func after(_ action: ModerationAction) throws(SafetyError) -> ReportState {
        switch (self, action) {
        case (.pending, .reviewed): .reviewed
        case (.reviewed, .resolved): .resolved
        default: throw .invalidReportTransition(from: self, action: action)
        }
    }

    /// nil for REPORT_STATUS_UNSPECIFIED (any state); INVALID_ARGUMENT `INVALID_STATUS` for
    /// a number we do not know.
    static func filter(_ status: Safety.ReportStatus) throws(SafetyError) -> ReportState? {
        switch status {
        case .unspecified: nil
        case .pending: .pending
        case .reviewed: .reviewed
        case .resolved: .resolved
        default: throw .invalidStatus
        }
    }

    var message: Safety.ReportStatus {
        switch self {
        case .pending: .pending
        case .reviewed: .reviewed
        case .resolved: .resolved
        }
    }
}

/// What an admin does to a report.
enum ModerationAction: String, Sendable {
    case reviewed
    case resolved
}
