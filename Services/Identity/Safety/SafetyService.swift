import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.identity.v1.Safety`: blocks (mutual invisibility) and reports (the moderation
/// queue admins work). Rules are documented in safety.proto.
struct SafetyService: SafetyProvider {
    let pool: PostgresPool
    let apps: AppPolicies
    let outbox: Outbox

    static let details = TextRule(field: "details", maximumLength: 2000, multiline: true)
    static let note = TextRule(field: "note", maximumLength: 2000, multiline: true)

    func block(_ request: Safety.BlockRequest, context: ServerCallContext) async throws -> Safety.BlockedUser {
        try await block(request, caller: try context.requireAccount())
    }

    func unblock(_ request: Safety.UnblockRequest, context: ServerCallContext) async throws -> Safety.UnblockResponse {
        try await unblock(request, caller: try context.requireAccount())
    }

    func listBlocks(_ request: Safety.ListBlocksRequest, context: ServerCallContext) async throws
        -> Safety.ListBlocksResponse {
        try await listBlocks(request, caller: try context.requireAccount())
    }

    func report(_ request: Safety.ReportRequest, context: ServerCallContext) async throws -> Safety.UserReport {
        try await report(request, caller: try context.requireAccount())
    }

    func listReports(_ request: Safety.ListReportsRequest, context: ServerCallContext) async throws
        -> Safety.ListReportsResponse {
        try await listReports(request, caller: try context.requireAccount())
    }

    func reviewReport(_ request: Safety.ReviewReportRequest, context: ServerCallContext) async throws
        -> Safety.UserReport {
        try await moderate(request.reportID, .reviewed, note: request.note, caller: try context.requireAccount())
    }

    func resolveReport(_ request: Safety.ResolveReportRequest, context: ServerCallContext) async throws
        -> Safety.UserReport {
        try await moderate(request.reportID, .resolved, note: request.note, caller: try context.requireAccount())
    }

    private func block(_ request: Safety.BlockRequest, caller: AuthenticatedAccount) async throws -> Safety.BlockedUser {
        let blocker = try caller.accountUUID()
        let target = try LookupError.accountID(request.accountID)
        guard target != blocker else { throw SafetyError.cannotBlockSelf }
        return try await pool.withTransaction { connection in
            let username = try await Self.username(of: target, app: caller.app, on: connection)
            let blockedAt = try await addBlock(target, by: blocker, app: caller.app, on: connection)
            var blocked = Safety.BlockedUser()
            blocked.accountID = target.uuidString.lowercased()
            blocked.username = username
            blocked.blockedAt = Timestamp(microseconds: blockedAt)
            return blocked
        }
    }

    private func unblock(_ request: Safety.UnblockRequest, caller: AuthenticatedAccount) async throws
        -> Safety.UnblockResponse {
        let blocker = try caller.accountUUID()
        let target = try LookupError.accountID(request.accountID)
        guard target != blocker else { throw SafetyError.cannotBlockSelf }
        return try await pool.withTransaction { connection in
            _ = try await Self.username(of: target, app: caller.app, on: connection)
            guard let unblockedAt = try await BlockStore.unblock(target, by: blocker, on: connection) else {
                return Safety.UnblockResponse(unblocked: false)
            }
            var event = Safety.UserUnblocked()
            event.blockerID = blocker.uuidString.lowercased()
            event.blockedID = target.uuidString.lowercased()
            event.app = caller.app
            event.unblockedAt = Timestamp(microseconds: unblockedAt)
            try await outbox.appendAtCommit(OutboxEvent(type: "UserUnblocked", app: caller.app, aggregateID: event.blockerID,
                                                        payload: event.serializedBytes()), on: connection)
            return Safety.UnblockResponse(unblocked: true)
        }
    }

    private func listBlocks(_ request: Safety.ListBlocksRequest, caller: AuthenticatedAccount) async throws
        -> Safety.ListBlocksResponse {
        let blocker = try caller.accountUUID()
        let pageSize = try PageCursor.pageSize(request.pageSize)
        let cursor = try PageCursor.parse(request.pageToken)
        let entries = try await pool.withConnection { connection in
            try await BlockStore.list(by: blocker, after: cursor, limit: pageSize + 1, on: connection)
        }
        let page = entries.prefix(pageSize)
        var response = Safety.ListBlocksResponse(blocks: page.map { entry in
            var blocked = Safety.BlockedUser()
            blocked.accountID = entry.accountID.uuidString.lowercased()
            blocked.username = entry.username
            blocked.blockedAt = Timestamp(microseconds: entry.blockedAt)
            return blocked
        })
        if entries.count > pageSize, let last = page.last {
            response.nextPageToken = PageCursor(microseconds: last.blockedAt, id: last.accountID).token
        }
        return response
    }

    private func report(_ request: Safety.ReportRequest, caller: AuthenticatedAccount) async throws -> Safety.UserReport {
        let reporter = try caller.accountUUID()
        let target = try LookupError.accountID(request.accountID)
        guard target != reporter else { throw SafetyError.cannotReportSelf }
        let reason = try ReportReasonCode(request.reason)
        let details = try Self.details.clean(request.details)
        return try await pool.withTransaction { connection in
            _ = try await Self.username(of: target, app: caller.app, on: connection)
            let (report, created) = try await ReportStore.file(by: reporter, about: target, app: caller.app,
                                                               reason: reason, details: details, on: connection)
            if created {
                var event = Safety.UserReported()
                event.reportID = report.id.uuidString.lowercased()
                event.app = caller.app
                event.reporterID = reporter.uuidString.lowercased()
                event.reportedID = target.uuidString.lowercased()
                event.reason = reason.message
                event.reportedAt = Timestamp(microseconds: report.createdAt)
                try await outbox.appendAtCommit(OutboxEvent(type: "UserReported", app: caller.app, aggregateID: event.reportedID,
                                                            payload: event.serializedBytes()), on: connection)
            }
            if request.alsoBlock {
                _ = try await addBlock(target, by: reporter, app: caller.app, on: connection)
            }
            return report.message(forModerator: false)
        }
    }

    private func listReports(_ request: Safety.ListReportsRequest, caller: AuthenticatedAccount) async throws
        -> Safety.ListReportsResponse {
        let pageSize = try PageCursor.pageSize(request.pageSize)
        let cursor = try PageCursor.parse(request.pageToken)
        let state = try ReportState.filter(request.status)
        let reported = request.reportedID.isEmpty ? nil : try LookupError.accountID(request.reportedID)
        let reports = try await pool.withConnection { connection in
            try await Authorization.requireAdmin(caller, on: connection)
            return try await ReportStore.list(app: caller.app, state: state, reported: reported, after: cursor,
                                              limit: pageSize + 1, on: connection)
        }
        let page = reports.prefix(pageSize)
        var response = Safety.ListReportsResponse(reports: page.map { $0.message(forModerator: true) })
        if reports.count > pageSize, let last = page.last {
            response.nextPageToken = PageCursor(microseconds: last.createdAt, id: last.id).token
        }
        return response
    }

    /// An admin moves a report of its app one step along pending → reviewed → resolved.
    private func moderate(_ reportID: String, _ action: ModerationAction, note: String,
                          caller: AuthenticatedAccount) async throws -> Safety.UserReport {
        let moderator = try caller.accountUUID()
        return try await pool.withTransaction { connection in
            try await Authorization.requireAdmin(caller, on: connection)
            guard let id = UUID(uuidString: reportID.trimmedOfWhitespace) else { throw SafetyError.invalidReportID }
            let note = try Self.note.clean(note)
            guard let report = try await ReportStore.lock(id, app: caller.app, on: connection) else {
                throw SafetyError.reportNotFound
            }
            let next = try report.state.after(action)
            return try await ReportStore.record(action, on: id, state: next, by: moderator, note: note, on: connection)
                .message(forModerator: true)
        }
    }

    /// Adds `blocker`'s block of `blocked` with its `UserBlocked` event, once; returns when the
    /// block was made.
    private func addBlock(_ blocked: UUID, by blocker: UUID, app: String, on connection: Connection) async throws -> Int64 {
        let (blockedAt, created) = try await BlockStore.block(blocked, by: blocker, app: app, on: connection)
        if created {
            var event = Safety.UserBlocked()
            event.blockerID = blocker.uuidString.lowercased()
            event.blockedID = blocked.uuidString.lowercased()
            event.app = app
            event.blockedAt = Timestamp(microseconds: blockedAt)
            try await outbox.appendAtCommit(OutboxEvent(type: "UserBlocked", app: app, aggregateID: event.blockerID,
                                                        payload: event.serializedBytes()), on: connection)
        }
        return blockedAt
    }

    /// The username of account `id` in `app`; NOT_FOUND `USER_NOT_FOUND` when the app has no
    /// such account (another app's account included).
    private static func username(of id: UUID, app: String, on connection: Connection) async throws -> String {
        let rows = try await connection.query("SELECT username FROM identity.accounts WHERE id = $1 AND app = $2",
                                              [.uuid(id), .text(app)])
        guard let row = rows.first else { throw LookupError.userNotFound }
        return try row.decode(0)
    }
}
