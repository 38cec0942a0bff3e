import Contracts

/// Why an account was reported, as stored (`identity.reports.reason`).
enum ReportReasonCode: String, Sendable, CaseIterable {
    case spam
    case harassment
    case inappropriate
    case fake
    case underage
    case other

    /// INVALID_ARGUMENT `INVALID_REASON` for REPORT_REASON_UNSPECIFIED or an unknown number.
    init(_ reason: Safety.ReportReason) throws(SafetyError) {
        switch reason {
        case .spam: self = .spam
        case .harassment: self = .harassment
        case .inappropriate: self = .inappropriate
        case .fake: self = .fake
        case .underage: self = .underage
        case .other: self = .other
        default: throw .invalidReason
        }
    }

    var message: Safety.ReportReason {
        switch self {
        case .spam: .spam
        case .harassment: .harassment
        case .inappropriate: .inappropriate
        case .fake: .fake
        case .underage: .underage
        case .other: .other
        }
    }
}
