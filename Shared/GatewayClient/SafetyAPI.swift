public import ContractTypes
public import RPCCore

extension GatewayClient {
    /// Blocks and reports (`rendezvous.identity.v1.Safety`).
    public var safety: SafetyAPI { SafetyAPI(runner: runner) }
}

/// The Safety service as an app calls it, always as the signed-in account. A block hides the two
/// accounts from each other both ways; reports go to the app's admins, who work them with the
/// admin methods here. Another app's account is NOT_FOUND `USER_NOT_FOUND`.
public struct SafetyAPI: Sendable {
    let runner: CallRunner

    /// Every Safety method the client calls, with its retry and authentication rules: the one
    /// place they are decided.
    enum Methods {
        /// Blocking again returns the existing block.
        static let block = GatewayMethod("Safety/Block", .idempotentWrite, .session)
        /// Unblocking an account that is not blocked is a no-op (`unblocked = false`).
        static let unblock = GatewayMethod("Safety/Unblock", .idempotentWrite, .session)
        static let listBlocks = GatewayMethod("Safety/ListBlocks", .read, .session)
        /// Not retried: a repeat returns the open report, but one landing after a moderator closed
        /// the first would file a second.
        static let report = GatewayMethod("Safety/Report", .write, .session)
        static let listReports = GatewayMethod("Safety/ListReports", .read, .session)
        /// Not retried: a repeat of a step that was taken fails INVALID_REPORT_TRANSITION.
        static let reviewReport = GatewayMethod("Safety/ReviewReport", .write, .session)
        static let resolveReport = GatewayMethod("Safety/ResolveReport", .write, .session)
    }

    private var stub: SafetyClient { SafetyClient(client: runner.transport) }

    /// Blocks an account of the app (INVALID_ARGUMENT `CANNOT_BLOCK_SELF` for one's own);
    /// blocking again returns the existing block.
    @discardableResult
    public func block(accountID: String, deadline: Duration? = nil) async throws(GatewayError) -> Safety.BlockedUser {
        let request = Safety.BlockRequest(accountID: accountID)
        return try await runner.run(Methods.block, deadline: deadline) { [stub] options in
            try await stub.block(request, options: options)
        }
    }

    /// Removes the caller's block of an account; false when there was none. Retried when
    /// unreachable, so false may also mean an earlier attempt of this call removed it.
    @discardableResult
    public func unblock(accountID: String, deadline: Duration? = nil) async throws(GatewayError) -> Bool {
        let request = Safety.UnblockRequest(accountID: accountID)
        return try await runner.run(Methods.unblock, deadline: deadline) { [stub] options in
            try await stub.unblock(request, options: options).unblocked
        }
    }

    /// One page of the accounts the caller blocked, newest first; pass `nextPageToken` for the
    /// next (empty on the last page).
    public func listBlocks(pageSize: Int32 = 0, pageToken: String = "",
                           deadline: Duration? = nil) async throws(GatewayError) -> Safety.ListBlocksResponse {
        let request = Safety.ListBlocksRequest(pageSize: pageSize, pageToken: pageToken)
        return try await runner.run(Methods.listBlocks, deadline: deadline) { [stub] options in
            try await stub.listBlocks(request, options: options)
        }
    }

    /// Reports an account to the app's moderators, optionally blocking it in the same step.
    /// While the caller's report about that account is open, reporting again returns it.
    /// Returned without the moderators' fields. Sent once: never retried.
    @discardableResult
    public func report(accountID: String, reason: Safety.ReportReason, details: String = "", alsoBlock: Bool = false,
                       deadline: Duration? = nil) async throws(GatewayError) -> Safety.UserReport {
        let request = Safety.ReportRequest(accountID: accountID, reason: reason, details: details, alsoBlock: alsoBlock)
        return try await runner.run(Methods.report, deadline: deadline) { [stub] options in
            try await stub.report(request, options: options)
        }
    }

    /// One page of the app's reports, oldest first, of one status (`.unspecified`: any) and
    /// optionally about one account. Admins only (PERMISSION_DENIED `ADMIN_ONLY`).
    public func listReports(status: Safety.ReportStatus = .unspecified, reportedID: String = "", pageSize: Int32 = 0,
                            pageToken: String = "",
                            deadline: Duration? = nil) async throws(GatewayError) -> Safety.ListReportsResponse {
        let request = Safety.ListReportsRequest(status: status, reportedID: reportedID, pageSize: pageSize,
                                                pageToken: pageToken)
        return try await runner.run(Methods.listReports, deadline: deadline) { [stub] options in
            try await stub.listReports(request, options: options)
        }
    }

    /// Moves a pending report to reviewed, with the admin's note. Admins only; FAILED_PRECONDITION
    /// `INVALID_REPORT_TRANSITION` unless the report is pending. Sent once: never retried.
    public func reviewReport(id: String, note: String = "",
                             deadline: Duration? = nil) async throws(GatewayError) -> Safety.UserReport {
        let request = Safety.ReviewReportRequest(reportID: id, note: note)
        return try await runner.run(Methods.reviewReport, deadline: deadline) { [stub] options in
            try await stub.reviewReport(request, options: options)
        }
    }

    /// Moves a reviewed report to resolved, with the admin's note. Admins only;
    /// FAILED_PRECONDITION `INVALID_REPORT_TRANSITION` unless the report was reviewed. Sent
    /// once: never retried.
    public func resolveReport(id: String, note: String = "",
                              deadline: Duration? = nil) async throws(GatewayError) -> Safety.UserReport {
        let request = Safety.ResolveReportRequest(reportID: id, note: note)
        return try await runner.run(Methods.resolveReport, deadline: deadline) { [stub] options in
            try await stub.resolveReport(request, options: options)
        }
    }
}
