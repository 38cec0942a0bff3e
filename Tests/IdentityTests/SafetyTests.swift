import Contracts
import Foundation
@testable import Identity
import RPC
import Runtime
import Testing

/// Blocks and the moderation queue over a live socket.
@Suite struct SafetyTests {
    // MARK: - Blocks

    @Test func block_hidesThePairFromEachOther_bothWays_untilUnblocked() async throws {
        let harness = try await IdentityHarness.start()
        let alice = try await harness.newUser("unseen")
        let bob = try await harness.newUser("unseen")
        let blocked = try await harness.safety.block(.init(accountID: bob.id), options: alice.options)
        #expect(blocked.accountID == bob.id && blocked.username == bob.username && blocked.blockedAt != nil)
        for (reader, target) in [(alice, bob), (bob, alice)] {
            expectError(await rpcError { _ = try await harness.profiles.getProfile(.init(accountID: target.id), options: reader.options) },
                        .notFound, "USER_NOT_FOUND")
            expectError(await rpcError {
                _ = try await harness.profiles.getProfileByUsername(.init(username: target.username), options: reader.options)
            }, .notFound, "USER_NOT_FOUND")
        }
        let (aliceID, bobID) = (try #require(UUID(uuidString: alice.id)), try #require(UUID(uuidString: bob.id)))
        let blockedBothWays = try await harness.pool.withConnection { connection in
            (try await BlockStore.isBlocked(bobID, aliceID, on: connection), try await BlockStore.isBlocked(aliceID, bobID, on: connection))
        }
        #expect(blockedBothWays == (true, true))
        let unblocked = try await harness.safety.unblock(.init(accountID: bob.id), options: alice.options)
        #expect(unblocked.unblocked)
        #expect(try await harness.profiles.getProfile(.init(accountID: alice.id), options: bob.options).accountID == alice.id)
        #expect(try await harness.eventCount("UserBlocked", aggregateID: alice.id) == 1)
        let events = try await harness.eventPayloads("UserUnblocked", aggregateID: alice.id)
        #expect(events.count == 1)
        let event = try Safety.UserUnblocked(serializedBytes: try #require(events.first))
        #expect(event.blockerID == alice.id && event.blockedID == bob.id && event.app == "unseen" && event.unblockedAt != nil)
        // Unblocking again is fine and changes nothing.
        #expect(!(try await harness.safety.unblock(.init(accountID: bob.id), options: alice.options).unblocked))
        #expect(try await harness.eventCount("UserUnblocked", aggregateID: alice.id) == 1)
        await harness.stop()
    }

    @Test func block_again_returnsTheSameBlock_andEmitsOnce() async throws {
        let harness = try await IdentityHarness.start()
        let alice = try await harness.newUser("swivo")
        let bob = try await harness.newUser("swivo")
        let first = try await harness.safety.block(.init(accountID: bob.id), options: alice.options)
        let second = try await harness.safety.block(.init(accountID: bob.id), options: alice.options)
        #expect(first == second)
        let events = try await harness.eventPayloads("UserBlocked", aggregateID: alice.id)
        #expect(events.count == 1)
        let event = try Safety.UserBlocked(serializedBytes: try #require(events.first))
        #expect(event.blockerID == alice.id && event.blockedID == bob.id && event.app == "swivo" && event.blockedAt == first.blockedAt)
        await harness.stop()
    }

    @Test func block_concurrently_makesOneBlockAndOneEvent_andCrossedBlocksBothHold() async throws {
        let harness = try await IdentityHarness.start()
        let alice = try await harness.newUser("unseen")
        let bob = try await harness.newUser("unseen")
        let results = try await withThrowingTaskGroup(of: Safety.BlockedUser.self) { group in
            for _ in 0..<4 {
                group.addTask { try await harness.safety.block(.init(accountID: bob.id), options: alice.options) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(results.map { $0.blockedAt?.seconds ?? 0 }).count == 1)
        #expect(try await harness.eventCount("UserBlocked", aggregateID: alice.id) == 1)
        async let forward = harness.safety.block(.init(accountID: bob.id), options: alice.options)
        async let backward = harness.safety.block(.init(accountID: alice.id), options: bob.options)
        _ = try await (forward, backward)
        let rows = try await harness.pool.withConnection { connection in
            try await connection.query("""
                SELECT count(*) FROM identity.blocks WHERE blocker_id IN ($1, $2) AND blocked_id IN ($1, $2)
                """, [.uuid(UUID(uuidString: alice.id)), .uuid(UUID(uuidString: bob.id))])[0].decode(0, as: Int.self)
        }
        #expect(rows == 2)
        #expect(try await harness.eventCount("UserBlocked", aggregateID: bob.id) == 1)
        await harness.stop()
    }

    /// Blocking again while an unblock of the same pair commits: the block the insert met can be
    /// gone when the call reads it back, which once trapped and ended identity. Every call
    /// answers, and the pair ends blocked or not as the last call left it.
    @Test func blockAgain_racingUnblock_everyCallAnswers() async throws {
        let harness = try await IdentityHarness.start()
        let alice = try await harness.newUser("unseen")
        let bob = try await harness.newUser("unseen")
        for _ in 0..<400 {
            _ = try await harness.safety.block(.init(accountID: bob.id), options: alice.options)
            async let again = harness.safety.block(.init(accountID: bob.id), options: alice.options)
            async let unblock = harness.safety.unblock(.init(accountID: bob.id), options: alice.options)
            _ = try await (again, unblock)
        }
        _ = try await harness.safety.block(.init(accountID: bob.id), options: alice.options)
        let rows = try await harness.pool.withConnection { connection in
            try await connection.query("SELECT count(*) FROM identity.blocks WHERE blocker_id = $1 AND blocked_id = $2",
                                       [.uuid(UUID(uuidString: alice.id)), .uuid(UUID(uuidString: bob.id))])[0].decode(0, as: Int.self)
        }
        #expect(rows == 1)
        await harness.stop()
    }

    @Test func block_yourself_isInvalid_anotherAppsAccount_isNotFound() async throws {
        let harness = try await IdentityHarness.start()
        let alice = try await harness.newUser("unseen")
        let elsewhere = try await harness.newUser("swivo")
        expectError(await rpcError { _ = try await harness.safety.block(.init(accountID: alice.id), options: alice.options) },
                    .invalidArgument, "CANNOT_BLOCK_SELF")
        expectError(await rpcError { _ = try await harness.safety.block(.init(accountID: elsewhere.id), options: alice.options) },
                    .notFound, "USER_NOT_FOUND")
        expectError(await rpcError { _ = try await harness.safety.unblock(.init(accountID: elsewhere.id), options: alice.options) },
                    .notFound, "USER_NOT_FOUND")
        expectError(await rpcError { _ = try await harness.safety.block(.init(accountID: "bob"), options: alice.options) },
                    .invalidArgument, "INVALID_ACCOUNT_ID")
        await harness.stop()
    }

    @Test func listBlocks_newestFirst_inPages() async throws {
        let harness = try await IdentityHarness.start()
        let alice = try await harness.newUser("unseen")
        var others: [TestUser] = []
        for _ in 0..<3 {
            let other = try await harness.newUser("unseen")
            others.append(other)
            _ = try await harness.safety.block(.init(accountID: other.id), options: alice.options)
        }
        let first = try await harness.safety.listBlocks(.init(pageSize: 2), options: alice.options)
        #expect(first.blocks.map(\.accountID) == [others[2].id, others[1].id] && !first.nextPageToken.isEmpty)
        let second = try await harness.safety.listBlocks(.init(pageSize: 2, pageToken: first.nextPageToken), options: alice.options)
        #expect(second.blocks.map(\.accountID) == [others[0].id] && second.nextPageToken.isEmpty)
        #expect(second.blocks.first?.username == others[0].username)
        // Others' blocks are not listed.
        #expect(try await harness.safety.listBlocks(.init(), options: others[0].options).blocks.isEmpty)
        expectError(await rpcError { _ = try await harness.safety.listBlocks(.init(pageToken: "x"), options: alice.options) },
                    .invalidArgument, "INVALID_PAGE_TOKEN")
        await harness.stop()
    }

    @Test func blocks_hideFromHosts_butNotFromAdmins() async throws {
        let harness = try await IdentityHarness.start()
        let before = try await ProfileTests.databaseNow(harness)
        let viewer = try await harness.newUser("firstdate")
        let host = try await harness.newUser("firstdate", role: "host")
        let admin = try await harness.newUser("firstdate", role: "admin")
        _ = try await harness.safety.block(.init(accountID: host.id), options: viewer.options)
        _ = try await harness.safety.block(.init(accountID: admin.id), options: viewer.options)
        expectError(await rpcError { _ = try await harness.profiles.getProfile(.init(accountID: viewer.id), options: host.options) },
                    .notFound, "USER_NOT_FOUND")
        #expect(try await harness.profiles.getProfile(.init(accountID: viewer.id), options: admin.options).accountID == viewer.id)
        let start = PageCursor(microseconds: before, id: ProfileTests.zeroID).token
        let listedByHost = try await harness.profiles.listProfiles(.init(pageSize: 200, pageToken: start), options: host.options)
        #expect(!listedByHost.profiles.contains { $0.accountID == viewer.id })
        let listedByAdmin = try await harness.profiles.listProfiles(.init(pageSize: 200, pageToken: start), options: admin.options)
        #expect(listedByAdmin.profiles.contains { $0.accountID == viewer.id })
        await harness.stop()
    }

    // MARK: - Reports

    @Test func report_filesAPendingReport_once_withOneUserReportedEvent_andCanAlsoBlock() async throws {
        let harness = try await IdentityHarness.start()
        let alice = try await harness.newUser("unseen")
        let bob = try await harness.newUser("unseen")
        let report = try await harness.safety.report(.init(accountID: bob.id, reason: .harassment, details: "  rude\r\nthen worse  "),
                                                     options: alice.options)
        #expect(report.status == .pending && report.reason == .harassment && report.details == "rude\nthen worse")
        #expect(report.reporterID == alice.id && report.reportedID == bob.id && report.app == "unseen")
        let again = try await harness.safety.report(.init(accountID: bob.id, reason: .spam, alsoBlock: true), options: alice.options)
        #expect(again.id == report.id && again.reason == .harassment)
        let events = try await harness.eventPayloads("UserReported", aggregateID: bob.id)
        #expect(events.count == 1)
        let event = try Safety.UserReported(serializedBytes: try #require(events.first))
        #expect(event.reportID == report.id && event.reporterID == alice.id && event.reason == .harassment)
        // also_block blocked bob.
        expectError(await rpcError { _ = try await harness.profiles.getProfile(.init(accountID: alice.id), options: bob.options) },
                    .notFound, "USER_NOT_FOUND")
        #expect(try await harness.eventCount("UserBlocked", aggregateID: alice.id) == 1)
        await harness.stop()
    }

    @Test func report_unhappyPaths() async throws {
        let harness = try await IdentityHarness.start()
        let alice = try await harness.newUser("unseen")
        let bob = try await harness.newUser("unseen")
        let elsewhere = try await harness.newUser("swivo")
        expectError(await rpcError { _ = try await harness.safety.report(.init(accountID: alice.id, reason: .spam), options: alice.options) },
                    .invalidArgument, "CANNOT_REPORT_SELF")
        for reason in [Safety.ReportReason.unspecified, Safety.ReportReason(rawValue: 99)] {
            expectError(await rpcError { _ = try await harness.safety.report(.init(accountID: bob.id, reason: reason), options: alice.options) },
                        .invalidArgument, "INVALID_REASON")
        }
        let long = await rpcError {
            _ = try await harness.safety.report(.init(accountID: bob.id, reason: .other, details: String(repeating: "x", count: 2001)),
                                                options: alice.options)
        }
        expectError(long, .invalidArgument, "FIELD_TOO_LONG")
        #expect(long?.details["field"] == "details")
        expectError(await rpcError { _ = try await harness.safety.report(.init(accountID: bob.id, reason: .other, details: "a\u{0}"), options: alice.options) },
                    .invalidArgument, "INVALID_TEXT")
        expectError(await rpcError { _ = try await harness.safety.report(.init(accountID: elsewhere.id, reason: .fake), options: alice.options) },
                    .notFound, "USER_NOT_FOUND")
        #expect(try await harness.eventCount("UserReported", aggregateID: bob.id) == 0)
        await harness.stop()
    }

    @Test func moderation_pendingThenReviewedThenResolved_byAdminsOnly() async throws {
        let harness = try await IdentityHarness.start()
        let alice = try await harness.newUser("elite")
        let carol = try await harness.newUser("elite")
        let bob = try await harness.newUser("elite")
        let admin = try await harness.newUser("elite", role: "admin")
        let first = try await harness.safety.report(.init(accountID: bob.id, reason: .fake), options: alice.options)
        let second = try await harness.safety.report(.init(accountID: bob.id, reason: .spam, details: "ads"), options: carol.options)

        // Members cannot work the queue.
        expectError(await rpcError { _ = try await harness.safety.listReports(.init(), options: alice.options) },
                    .permissionDenied, "ADMIN_ONLY")
        expectError(await rpcError { _ = try await harness.safety.reviewReport(.init(reportID: first.id), options: alice.options) },
                    .permissionDenied, "ADMIN_ONLY")
        expectError(await rpcError { _ = try await harness.safety.resolveReport(.init(reportID: first.id), options: alice.options) },
                    .permissionDenied, "ADMIN_ONLY")

        let pending = try await harness.safety.listReports(.init(status: .pending, reportedID: bob.id), options: admin.options)
        #expect(pending.reports.map(\.id) == [first.id, second.id])
        let paged = try await harness.safety.listReports(.init(reportedID: bob.id, pageSize: 1), options: admin.options)
        #expect(paged.reports.map(\.id) == [first.id] && !paged.nextPageToken.isEmpty)
        let rest = try await harness.safety.listReports(.init(reportedID: bob.id, pageSize: 1, pageToken: paged.nextPageToken),
                                                        options: admin.options)
        #expect(rest.reports.map(\.id) == [second.id])

        // pending → resolved skips a step.
        let skipped = await rpcError { _ = try await harness.safety.resolveReport(.init(reportID: first.id), options: admin.options) }
        expectError(skipped, .failedPrecondition, "INVALID_REPORT_TRANSITION")
        #expect(skipped?.details["status"] == "pending")

        let reviewed = try await harness.safety.reviewReport(.init(reportID: first.id, note: "checked photos"), options: admin.options)
        #expect(reviewed.status == .reviewed && reviewed.reviewerID == admin.id && reviewed.reviewNote == "checked photos")
        #expect(reviewed.reviewedAt != nil && reviewed.resolvedAt == nil)
        expectError(await rpcError { _ = try await harness.safety.reviewReport(.init(reportID: first.id), options: admin.options) },
                    .failedPrecondition, "INVALID_REPORT_TRANSITION")
        let resolved = try await harness.safety.resolveReport(.init(reportID: first.id, note: "suspended"), options: admin.options)
        #expect(resolved.status == .resolved && resolved.resolverID == admin.id && resolved.resolutionNote == "suspended")
        #expect(resolved.reviewNote == "checked photos" && resolved.resolvedAt != nil)
        expectError(await rpcError { _ = try await harness.safety.resolveReport(.init(reportID: first.id), options: admin.options) },
                    .failedPrecondition, "INVALID_REPORT_TRANSITION")

        let stillPending = try await harness.safety.listReports(.init(status: .pending, reportedID: bob.id), options: admin.options)
        #expect(stillPending.reports.map(\.id) == [second.id])
        let done = try await harness.safety.listReports(.init(status: .resolved, reportedID: bob.id), options: admin.options)
        #expect(done.reports.map(\.id) == [first.id])

        // Once resolved, the same reporter may report again: a new report.
        let newer = try await harness.safety.report(.init(accountID: bob.id, reason: .fake), options: alice.options)
        #expect(newer.id != first.id && newer.status == .pending)
        #expect(try await harness.eventCount("UserReported", aggregateID: bob.id) == 3)

        // Another app's admin sees neither the queue nor the report.
        let otherAdmin = try await harness.newUser("unseen", role: "admin")
        #expect(try await harness.safety.listReports(.init(reportedID: bob.id), options: otherAdmin.options).reports.isEmpty)
        expectError(await rpcError { _ = try await harness.safety.reviewReport(.init(reportID: second.id), options: otherAdmin.options) },
                    .notFound, "REPORT_NOT_FOUND")
        expectError(await rpcError { _ = try await harness.safety.reviewReport(.init(reportID: "r1"), options: admin.options) },
                    .invalidArgument, "INVALID_REPORT_ID")
        expectError(await rpcError { _ = try await harness.safety.listReports(.init(status: .init(rawValue: 9)), options: admin.options) },
                    .invalidArgument, "INVALID_STATUS")
        expectError(await rpcError {
            _ = try await harness.safety.reviewReport(.init(reportID: second.id, note: String(repeating: "n", count: 2001)), options: admin.options)
        }, .invalidArgument, "FIELD_TOO_LONG")
        await harness.stop()
    }

    @Test func deletingAnAccount_removesItsBlocksAndReports() async throws {
        let harness = try await IdentityHarness.start()
        let alice = try await harness.newUser("unseen")
        let bob = try await harness.newUser("unseen")
        _ = try await harness.safety.report(.init(accountID: bob.id, reason: .spam, alsoBlock: true), options: alice.options)
        let id = try #require(UUID(uuidString: alice.id))
        let left = try await harness.pool.withConnection { connection in
            _ = try await connection.execute("DELETE FROM identity.accounts WHERE id = $1", [.uuid(id)])
            return try await connection.query("""
                SELECT (SELECT count(*) FROM identity.blocks WHERE blocker_id = $1)
                     + (SELECT count(*) FROM identity.reports WHERE reporter_id = $1)
                """, [.uuid(id)])[0].decode(0, as: Int.self)
        }
        #expect(left == 0)
        await harness.stop()
    }
}

/// The moderation state machine, without the database.
@Suite struct ReportStateTests {
    @Test(arguments: [
        (ReportState.pending, ModerationAction.reviewed, ReportState?.some(.reviewed)),
        (.pending, .resolved, nil),
        (.reviewed, .reviewed, nil),
        (.reviewed, .resolved, .resolved),
        (.resolved, .reviewed, nil),
        (.resolved, .resolved, nil),
    ])
    func after_allowsOnlyPendingReviewedResolved(_ from: ReportState, _ action: ModerationAction, _ expected: ReportState?) throws {
        if let expected {
            #expect(try from.after(action) == expected)
        } else {
            #expect(throws: SafetyError.invalidReportTransition(from: from, action: action)) { try from.after(action) }
        }
    }
}
