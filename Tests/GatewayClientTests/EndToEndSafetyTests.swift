import Contracts
import GatewayClient
import RPC
import Testing

/// Blocks and reports on the identity executable, driven only through GatewayClient: what the
/// two people of a block see of each other, and a report's way through the moderation queue.
@Suite(.identityService, .timeLimit(.minutes(2)))
struct EndToEndSafetyTests {
    // MARK: Blocks

    @Test func aBlock_hidesBothProfilesFromEachOther_isListed_andUnblockRestoresThem() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let blocker = try await users.signUp("swivo")
        let blocked = try await users.signUp("swivo")
        #expect(try await blocker.client.profiles.getProfile(accountID: blocked.id).accountID == blocked.id)

        let block = try await blocker.client.safety.block(accountID: blocked.id)
        #expect(block.accountID == blocked.id && block.username == blocked.account.username && block.blockedAt != nil)
        for (reader, target) in [(blocker, blocked), (blocked, blocker)] {
            let byID = await gatewayError { _ = try await reader.client.profiles.getProfile(accountID: target.id) }
            expectFailure(byID, .notFound, "USER_NOT_FOUND")
            let byName = await gatewayError { _ = try await reader.client.profiles.getProfile(username: target.account.username) }
            expectFailure(byName, .notFound, "USER_NOT_FOUND")
        }
        // Blocking again is the same block.
        #expect(try await blocker.client.safety.block(accountID: blocked.id).blockedAt == block.blockedAt)
        let listed = try await blocker.client.safety.listBlocks()
        #expect(listed.blocks.map(\.accountID) == [blocked.id] && listed.nextPageToken.isEmpty)
        #expect(try await blocked.client.safety.listBlocks().blocks.isEmpty)

        #expect(try await blocker.client.safety.unblock(accountID: blocked.id))
        #expect(try await blocker.client.safety.unblock(accountID: blocked.id) == false)
        #expect(try await blocker.client.safety.listBlocks().blocks.isEmpty)
        #expect(try await blocker.client.profiles.getProfile(accountID: blocked.id).accountID == blocked.id)
        #expect(try await blocked.client.profiles.getProfile(accountID: blocker.id).accountID == blocker.id)
    }

    @Test func blockingOneself_orAnotherAppsAccount_isRefusedWithItsReason() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let user = try await users.signUp("unseen")
        let elsewhere = try await users.signUp("momento")
        let own = await gatewayError { try await user.client.safety.block(accountID: user.id) }
        expectFailure(own, .invalidArgument, "CANNOT_BLOCK_SELF")
        let otherApp = await gatewayError { try await user.client.safety.block(accountID: elsewhere.id) }
        expectFailure(otherApp, .notFound, "USER_NOT_FOUND")
        let malformed = await gatewayError { try await user.client.safety.block(accountID: "not-a-uuid") }
        expectFailure(malformed, .invalidArgument, "INVALID_ACCOUNT_ID")
    }

    // MARK: Reports

    @Test func aReport_isListedReviewedAndResolvedByAnAdmin() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let reporter = try await users.signUp("firstdate")
        let reported = try await users.signUp("firstdate")
        let admin = try await users.signUp("firstdate", role: "admin")

        let filed = try await reporter.client.safety.report(accountID: reported.id, reason: .harassment, details: "Rude messages.")
        #expect(filed.status == .pending && filed.reporterID == reporter.id && filed.reportedID == reported.id)
        #expect(filed.reason == .harassment && filed.details == "Rude messages.")
        // Reporting again while it is open returns the same report.
        #expect(try await reporter.client.safety.report(accountID: reported.id, reason: .spam).id == filed.id)

        let pending = try await admin.client.safety.listReports(status: .pending, reportedID: reported.id)
        #expect(pending.reports.map(\.id) == [filed.id])
        let reviewed = try await admin.client.safety.reviewReport(id: filed.id, note: "Screenshots checked.")
        #expect(reviewed.status == .reviewed && reviewed.reviewerID == admin.id && reviewed.reviewNote == "Screenshots checked.")
        #expect(reviewed.reviewedAt != nil)
        let resolved = try await admin.client.safety.resolveReport(id: filed.id, note: "Warned.")
        #expect(resolved.status == .resolved && resolved.resolverID == admin.id && resolved.resolutionNote == "Warned.")
        #expect(try await admin.client.safety.listReports(status: .pending, reportedID: reported.id).reports.isEmpty)
        #expect(try await admin.client.safety.listReports(status: .resolved, reportedID: reported.id).reports.map(\.id) == [filed.id])

        let again = await gatewayError { _ = try await admin.client.safety.resolveReport(id: filed.id) }
        expectFailure(again, .failedPrecondition, "INVALID_REPORT_TRANSITION")
    }

    @Test func aReportThatAlsoBlocks_hidesTheReportedAtOnce() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let reporter = try await users.signUp("momento")
        let reported = try await users.signUp("momento")
        _ = try await reporter.client.safety.report(accountID: reported.id, reason: .fake, alsoBlock: true)
        let hidden = await gatewayError { _ = try await reported.client.profiles.getProfile(accountID: reporter.id) }
        expectFailure(hidden, .notFound, "USER_NOT_FOUND")
        #expect(try await reporter.client.safety.listBlocks().blocks.map(\.accountID) == [reported.id])
    }

    @Test func theModerationQueue_isRefusedToNonAdmins_andAReportNeedsAReason() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let reporter = try await users.signUp("firstdate")
        let reported = try await users.signUp("firstdate")
        let host = try await users.signUp("firstdate", role: "host")

        let noReason = await gatewayError { try await reporter.client.safety.report(accountID: reported.id, reason: .unspecified) }
        expectFailure(noReason, .invalidArgument, "INVALID_REASON")
        let own = await gatewayError { try await reporter.client.safety.report(accountID: reporter.id, reason: .spam) }
        expectFailure(own, .invalidArgument, "CANNOT_REPORT_SELF")

        let filed = try await reporter.client.safety.report(accountID: reported.id, reason: .spam)
        for caller in [reporter, host] {
            let list = await gatewayError { _ = try await caller.client.safety.listReports() }
            expectFailure(list, .permissionDenied, "ADMIN_ONLY")
            let review = await gatewayError { _ = try await caller.client.safety.reviewReport(id: filed.id) }
            expectFailure(review, .permissionDenied, "ADMIN_ONLY")
        }
    }
}
