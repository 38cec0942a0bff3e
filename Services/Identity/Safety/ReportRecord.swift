import Contracts
import Foundation

/// One row of `identity.reports`; times in microseconds since the epoch.
struct ReportRecord: Sendable {
    var id: UUID
    var app: String
    var reporterID: UUID
    var reportedID: UUID
    var reason: ReportReasonCode
    var details: String
    var state: ReportState
    var createdAt: Int64
    var reviewerID: UUID?
    var reviewedAt: Int64?
    var reviewNote: String
    var resolverID: UUID?
    var resolvedAt: Int64?
    var resolutionNote: String

    /// The UserReport message; the reporter sees its report without the moderators' fields.
    func message(forModerator: Bool) -> Safety.UserReport {
        var report = Safety.UserReport()
        report.id = id.uuidString.lowercased()
        report.app = app
        report.reporterID = reporterID.uuidString.lowercased()
        report.reportedID = reportedID.uuidString.lowercased()
        report.reason = reason.message
        report.details = details
        report.status = state.message
        report.createdAt = Timestamp(microseconds: createdAt)
        guard forModerator else { return report }
        report.reviewerID = reviewerID?.uuidString.lowercased() ?? ""
        report.reviewedAt = reviewedAt.map(Timestamp.init(microseconds:))
        report.reviewNote = reviewNote
        report.resolverID = resolverID?.uuidString.lowercased() ?? ""
        report.resolvedAt = resolvedAt.map(Timestamp.init(microseconds:))
        report.resolutionNote = resolutionNote
        return report
    }
}
