import Contracts
import Foundation
import Testing

/// Values of rendezvous.identity.v1.Safety (proto-docs/rendezvous/identity/v1/safety.proto).
extension ConformanceCase {
    static let safety: [ConformanceCase] = {
        let package = "rendezvous.identity.v1."
        let alice = "3f2c9a1e-8d4b-4e6f-9a0b-1c2d3e4f5a6b"
        let bob = "0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e"
        let admin = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
        let at = Timestamp(seconds: 1_795_000_000, nanos: 5_000)
        let atJSON = "2026-11-18T11:06:40.000005Z"

        var blocked = Safety.BlockedUser()
        blocked.accountID = bob
        blocked.username = "anon-7k3q"
        blocked.blockedAt = at
        let blockedJSON = #"{"account_id": "\#(bob)", "username": "anon-7k3q", "blocked_at": "\#(atJSON)"}"#

        var report = Safety.UserReport()
        report.id = admin
        report.app = "unseen"
        report.reporterID = alice
        report.reportedID = bob
        report.reason = .harassment
        report.details = unicodeText
        report.status = .resolved
        report.createdAt = at
        report.reviewerID = admin
        report.reviewedAt = Timestamp(seconds: 1_795_000_100)
        report.reviewNote = "looked at the chat"
        report.resolverID = admin
        report.resolvedAt = Timestamp(seconds: 1_795_000_200)
        report.resolutionNote = "warned"
        let reportJSON = """
            {"id": "\(admin)", "app": "unseen", "reporter_id": "\(alice)", "reported_id": "\(bob)",
             "reason": "REPORT_REASON_HARASSMENT", "details": \(unicodeJSON), "status": "REPORT_STATUS_RESOLVED",
             "created_at": "\(atJSON)", "reviewer_id": "\(admin)", "reviewed_at": "2026-11-18T11:08:20Z",
             "review_note": "looked at the chat", "resolver_id": "\(admin)", "resolved_at": "2026-11-18T11:10:00Z",
             "resolution_note": "warned"}
            """
        var unknownReason = Safety.UserReport()
        unknownReason.reason = Safety.ReportReason(rawValue: 42)
        unknownReason.status = Safety.ReportStatus(rawValue: 7)

        var userBlocked = Safety.UserBlocked()
        userBlocked.blockerID = alice
        userBlocked.blockedID = bob
        userBlocked.app = "elite"
        userBlocked.blockedAt = at
        var userUnblocked = Safety.UserUnblocked()
        userUnblocked.blockerID = alice
        userUnblocked.blockedID = bob
        userUnblocked.app = "elite"
        userUnblocked.unblockedAt = at
        var userReported = Safety.UserReported()
        userReported.reportID = admin
        userReported.app = "unseen"
        userReported.reporterID = alice
        userReported.reportedID = bob
        userReported.reason = .underage
        userReported.reportedAt = at

        return [
            ConformanceCase("default", Safety.BlockRequest(), proto: package + "BlockRequest", json: "{}"),
            ConformanceCase("id", Safety.BlockRequest(accountID: bob), proto: package + "BlockRequest",
                            json: #"{"account_id": "\#(bob)"}"#),
            ConformanceCase("default", Safety.BlockedUser(), proto: package + "BlockedUser", json: "{}"),
            ConformanceCase("full", blocked, proto: package + "BlockedUser", json: blockedJSON),
            ConformanceCase("default", Safety.UnblockRequest(), proto: package + "UnblockRequest", json: "{}"),
            ConformanceCase("id", Safety.UnblockRequest(accountID: bob), proto: package + "UnblockRequest",
                            json: #"{"account_id": "\#(bob)"}"#),
            ConformanceCase("default", Safety.UnblockResponse(), proto: package + "UnblockResponse", json: "{}"),
            ConformanceCase("unblocked", Safety.UnblockResponse(unblocked: true), proto: package + "UnblockResponse",
                            json: #"{"unblocked": true}"#),
            ConformanceCase("default", Safety.ListBlocksRequest(), proto: package + "ListBlocksRequest", json: "{}"),
            ConformanceCase("full", Safety.ListBlocksRequest(pageSize: 20, pageToken: "MTIzLmFi"),
                            proto: package + "ListBlocksRequest", json: #"{"page_size": 20, "page_token": "MTIzLmFi"}"#),
            ConformanceCase("default", Safety.ListBlocksResponse(), proto: package + "ListBlocksResponse", json: "{}"),
            ConformanceCase("two", Safety.ListBlocksResponse(blocks: [blocked, Safety.BlockedUser()], nextPageToken: "eA"),
                            proto: package + "ListBlocksResponse",
                            json: #"{"blocks": [\#(blockedJSON), {}], "next_page_token": "eA"}"#),
            ConformanceCase("default", Safety.ReportRequest(), proto: package + "ReportRequest", json: "{}"),
            ConformanceCase("full", Safety.ReportRequest(accountID: bob, reason: .other, details: "line\nnext", alsoBlock: true),
                            proto: package + "ReportRequest",
                            json: #"{"account_id": "\#(bob)", "reason": "REPORT_REASON_OTHER", "details": "line\nnext", "also_block": true}"#),
            ConformanceCase("default", Safety.UserReport(), proto: package + "UserReport", json: "{}"),
            ConformanceCase("full", report, proto: package + "UserReport", json: reportJSON),
            ConformanceCase("unknownEnums", unknownReason, proto: package + "UserReport", json: #"{"reason": 42, "status": 7}"#),
            ConformanceCase("default", Safety.ListReportsRequest(), proto: package + "ListReportsRequest", json: "{}"),
            ConformanceCase("full", Safety.ListReportsRequest(status: .pending, reportedID: bob, pageSize: 10, pageToken: "eA"),
                            proto: package + "ListReportsRequest",
                            json: #"{"status": "REPORT_STATUS_PENDING", "reported_id": "\#(bob)", "page_size": 10, "page_token": "eA"}"#),
            ConformanceCase("default", Safety.ListReportsResponse(), proto: package + "ListReportsResponse", json: "{}"),
            ConformanceCase("two", Safety.ListReportsResponse(reports: [report, Safety.UserReport()], nextPageToken: "eA"),
                            proto: package + "ListReportsResponse",
                            json: #"{"reports": [\#(reportJSON), {}], "next_page_token": "eA"}"#),
            ConformanceCase("default", Safety.ReviewReportRequest(), proto: package + "ReviewReportRequest", json: "{}"),
            ConformanceCase("full", Safety.ReviewReportRequest(reportID: admin, note: unicodeText),
                            proto: package + "ReviewReportRequest", json: #"{"report_id": "\#(admin)", "note": \#(unicodeJSON)}"#),
            ConformanceCase("default", Safety.ResolveReportRequest(), proto: package + "ResolveReportRequest", json: "{}"),
            ConformanceCase("full", Safety.ResolveReportRequest(reportID: admin, note: "banned"),
                            proto: package + "ResolveReportRequest", json: #"{"report_id": "\#(admin)", "note": "banned"}"#),
            ConformanceCase("default", Safety.UserBlocked(), proto: package + "UserBlocked", json: "{}"),
            ConformanceCase("full", userBlocked, proto: package + "UserBlocked", json: """
                {"blocker_id": "\(alice)", "blocked_id": "\(bob)", "app": "elite", "blocked_at": "\(atJSON)"}
                """),
            ConformanceCase("default", Safety.UserUnblocked(), proto: package + "UserUnblocked", json: "{}"),
            ConformanceCase("full", userUnblocked, proto: package + "UserUnblocked", json: """
                {"blocker_id": "\(alice)", "blocked_id": "\(bob)", "app": "elite", "unblocked_at": "\(atJSON)"}
                """),
            ConformanceCase("default", Safety.UserReported(), proto: package + "UserReported", json: "{}"),
            ConformanceCase("full", userReported, proto: package + "UserReported", json: """
                {"report_id": "\(admin)", "app": "unseen", "reporter_id": "\(alice)", "reported_id": "\(bob)",
                 "reason": "REPORT_REASON_UNDERAGE", "reported_at": "\(atJSON)"}
                """),
        ]
    }()
}
