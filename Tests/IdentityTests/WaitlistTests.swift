import Contracts
import CryptoCore
import Foundation
@testable import Identity
import Postgres
import RPC
import Testing

/// Waitlists over a live socket: the committee's review of an invite-only app's waitlisted
/// accounts, and public email waitlists with referral bumps. Each test that reads positions
/// uses an app of its own, so positions are absolute.
@Suite struct WaitlistTests {
    // MARK: - Invite-only apps: position and committee

    @Test func myPosition_followsJoinOrder_andMovesUpWhenOneAheadLeaves() async throws {
        let app = try IdentityHarness.ownApp(like: "elite")
        let harness = try await IdentityHarness.start(adding: [app])
        var members: [Identity.AuthSession] = []
        for _ in 0..<3 { members.append(try await harness.signUp(app.id)) }
        var positions: [Int32] = []
        for member in members {
            positions.append(try await harness.membership.getMyWaitlistPosition(options: .bearer(member.accessToken)).position)
        }
        #expect(positions == [1, 2, 3])
        let joined = try await harness.membership.getMyWaitlistPosition(options: .bearer(members[1].accessToken)).joinedAt
        #expect(joined == members[1].account?.createdAt)

        let admin = try await harness.admin(app.id)
        _ = try await harness.membership.approveMember(.init(accountID: members[0].account?.id ?? ""), options: .bearer(admin.accessToken))
        #expect(try await harness.membership.getMyWaitlistPosition(options: .bearer(members[2].accessToken)).position == 2)
        let approved = await rpcError {
            _ = try await harness.membership.getMyWaitlistPosition(options: .bearer(members[0].accessToken))
        }
        #expect(approved?.code == .failedPrecondition && approved?.reason == "NOT_WAITLISTED")
        await harness.stop()
    }

    @Test func listWaitlist_adminOnly_pagedInOrder_withPositionsAndEmails() async throws {
        let app = try IdentityHarness.ownApp(like: "elite")
        let harness = try await IdentityHarness.start(adding: [app])
        var members: [Identity.AuthSession] = []
        for _ in 0..<5 { members.append(try await harness.signUp(app.id)) }
        let admin = try await harness.admin(app.id)
        let notAdmin = await rpcError {
            _ = try await harness.membership.listWaitlist(.init(pageSize: 2), options: .bearer(members[0].accessToken))
        }
        #expect(notAdmin?.code == .permissionDenied && notAdmin?.reason == "ADMIN_ONLY")

        var listed: [Membership.WaitlistMember] = []
        var token = ""
        var pages = 0
        repeat {
            let page = try await harness.membership.listWaitlist(.init(pageSize: 2, pageToken: token), options: .bearer(admin.accessToken))
            listed += page.members
            token = page.nextPageToken
            pages += 1
            if pages == 2 {
                // Approving someone on an earlier page moves the later ones up.
                _ = try await harness.membership.approveMember(.init(accountID: members[0].account?.id ?? ""),
                                                               options: .bearer(admin.accessToken))
            }
        } while !token.isEmpty && pages < 10
        #expect(pages == 3)
        #expect(listed.map(\.accountID) == members.map { $0.account?.id ?? "" })
        #expect(listed.map(\.position) == [1, 2, 3, 4, 4])
        #expect(listed.map(\.email) == members.map { $0.account?.email ?? "" })
        #expect(listed.map(\.username) == members.map { $0.account?.username ?? "" })

        let everyone = try await harness.membership.listWaitlist(.init(), options: .bearer(admin.accessToken))
        #expect(everyone.members.count == 4 && everyone.nextPageToken.isEmpty && everyone.members.map(\.position) == [1, 2, 3, 4])
        for bad in ["garbage!", "MTIz", Base64URL.encode(Array("1:not-a-uuid".utf8)),
                    Base64URL.encode(Array("-5:\(UUID())".utf8))] {
            let error = await rpcError {
                _ = try await harness.membership.listWaitlist(.init(pageSize: 2, pageToken: bad), options: .bearer(admin.accessToken))
            }
            #expect(error?.code == .invalidArgument && error?.reason == "INVALID_PAGE_TOKEN", "\(bad)")
        }
        await harness.stop()
    }

    @Test func approve_makesActive_recordsAndEmits_onlyOnce_onlyInTheAdminsApp() async throws {
        let harness = try await IdentityHarness.start()
        let admin = try await harness.admin("elite")
        let applicant = try await harness.signUp("elite")
        let id = try #require(applicant.account?.id)

        let notAdmin = try await harness.member("elite")
        let refused = await rpcError {
            _ = try await harness.membership.approveMember(.init(accountID: id), options: .bearer(notAdmin.accessToken))
        }
        #expect(refused?.code == .permissionDenied && refused?.reason == "ADMIN_ONLY")
        let otherAdmin = try await harness.admin("firstdate")
        let elsewhere = await rpcError {
            _ = try await harness.membership.approveMember(.init(accountID: id), options: .bearer(otherAdmin.accessToken))
        }
        #expect(elsewhere?.code == .notFound && elsewhere?.reason == "MEMBER_NOT_FOUND")
        let badID = await rpcError {
            _ = try await harness.membership.approveMember(.init(accountID: "42"), options: .bearer(admin.accessToken))
        }
        #expect(badID?.code == .invalidArgument && badID?.reason == "INVALID_ACCOUNT_ID")

        let decision = try await harness.membership.approveMember(.init(accountID: id), options: .bearer(admin.accessToken))
        #expect(decision.accountID == id && decision.membershipStatus == "active" && decision.decidedAt != nil)
        let refreshed = try await harness.client.refreshSession(.init(refreshToken: applicant.refreshToken))
        #expect(refreshed.account?.membershipStatus == "active")
        let again = await rpcError {
            _ = try await harness.membership.approveMember(.init(accountID: id), options: .bearer(admin.accessToken))
        }
        #expect(again?.code == .failedPrecondition && again?.reason == "NOT_WAITLISTED")

        let events = try await harness.events("MembershipApproved", about: id, as: Membership.MembershipApproved.self)
        #expect(events.count == 1 && events.first?.method == .committee)
        #expect(events.first?.approvedByAccountID == admin.account?.id && events.first?.approvedAt == decision.decidedAt)
        let recorded = try await harness.pool.withConnection { connection in
            try await connection.query("SELECT decision, method, decided_by FROM identity.membership_decisions WHERE account_id = $1",
                                       [.uuid(try IdentityHarness.id(applicant))])
        }
        #expect(recorded.count == 1)
        #expect(try recorded[0].decode(0, as: String.self) == "approved" && recorded[0].decode(1, as: String.self) == "committee")
        await harness.stop()
    }

    @Test func reject_needsAReason_makesRejected_andEmitsIt() async throws {
        let harness = try await IdentityHarness.start()
        let admin = try await harness.admin("elite")
        let applicant = try await harness.signUp("elite")
        let id = try #require(applicant.account?.id)
        for reason in ["", "   ", String(repeating: "x", count: 501)] {
            let error = await rpcError {
                _ = try await harness.membership.rejectMember(.init(accountID: id, reason: reason), options: .bearer(admin.accessToken))
            }
            #expect(error?.code == .invalidArgument && error?.reason == "INVALID_REASON")
        }
        let decision = try await harness.membership.rejectMember(.init(accountID: id, reason: " incomplete profile "),
                                                                 options: .bearer(admin.accessToken))
        #expect(decision.membershipStatus == "rejected")
        #expect(try await harness.client.getAccount(options: .bearer(applicant.accessToken)).membershipStatus == "rejected")
        let events = try await harness.events("MembershipRejected", about: id, as: Membership.MembershipRejected.self)
        #expect(events.map(\.reason) == ["incomplete profile"] && events.first?.rejectedByAccountID == admin.account?.id)
        let approve = await rpcError {
            _ = try await harness.membership.approveMember(.init(accountID: id), options: .bearer(admin.accessToken))
        }
        #expect(approve?.reason == "NOT_WAITLISTED")
        let position = await rpcError { _ = try await harness.membership.getMyWaitlistPosition(options: .bearer(applicant.accessToken)) }
        #expect(position?.reason == "NOT_WAITLISTED")
        await harness.stop()
    }

    @Test func approveAndRejectAtOnce_exactlyOneDecides() async throws {
        let harness = try await IdentityHarness.start()
        let admin = try await harness.admin("elite")
        let second = try await harness.admin("elite")
        for _ in 0..<3 {
            let applicant = try await harness.signUp("elite")
            let id = applicant.account?.id ?? ""
            async let approve = rpcError {
                _ = try await harness.membership.approveMember(.init(accountID: id), options: .bearer(admin.accessToken))
            }
            async let reject = rpcError {
                _ = try await harness.membership.rejectMember(.init(accountID: id, reason: "no"), options: .bearer(second.accessToken))
            }
            let errors = await [approve, reject]
            #expect(errors.filter { $0 == nil }.count == 1)
            #expect(errors.compactMap { $0 }.first?.reason == "NOT_WAITLISTED")
            let approvals = try await harness.events("MembershipApproved", about: id, as: Membership.MembershipApproved.self)
            let rejections = try await harness.events("MembershipRejected", about: id, as: Membership.MembershipRejected.self)
            #expect(approvals.count + rejections.count == 1)
        }
        await harness.stop()
    }

    // MARK: - Public email waitlists

    @Test func join_givesCodeAndPosition_sameEmailIsTheSameEntry_positionNeedsEmailAndCode() async throws {
        let app = try IdentityHarness.ownApp(like: "firstdate")
        let harness = try await IdentityHarness.start(adding: [app])
        let emails = (0..<3).map { _ in IdentityHarness.uniqueEmail() }
        var entries: [Membership.WaitlistEntry] = []
        for email in emails { entries.append(try await harness.membership.joinWaitlist(.init(app: app.id, email: email))) }
        #expect(entries.map(\.position) == [1, 2, 3])
        #expect(Set(entries.map(\.referralCode)).count == 3 && entries.allSatisfy { $0.referralCode.count == 6 })
        #expect(entries.allSatisfy { $0.referrals == 0 && $0.joinedAt != nil })

        let again = try await harness.membership.joinWaitlist(.init(app: app.id, email: " " + emails[1].uppercased()))
        #expect(again == entries[1])
        let found = try await harness.membership.getWaitlistPosition(
            .init(app: app.id, email: emails[1], referralCode: entries[1].referralCode.lowercased()))
        #expect(found == entries[1])
        for (email, code) in [(emails[1], entries[0].referralCode), (IdentityHarness.uniqueEmail(), entries[1].referralCode)] {
            let error = await rpcError {
                _ = try await harness.membership.getWaitlistPosition(.init(app: app.id, email: email, referralCode: code))
            }
            #expect(error?.code == .notFound && error?.reason == "WAITLIST_ENTRY_NOT_FOUND")
        }
        await harness.stop()
    }

    /// Ten entries in join order A…J; J's referrals move it up 5 places each. On a tie of
    /// standing (join number − 5 × referrals) the entry with more referrals goes first.
    @Test func referrals_moveTheReferrerUpFivePlacesEach() async throws {
        let app = try IdentityHarness.ownApp(like: "firstdate")
        let harness = try await IdentityHarness.start(adding: [app])
        var codes: [String] = []
        var emails: [String] = []
        for _ in 0..<10 {
            let email = IdentityHarness.uniqueEmail()
            emails.append(email)
            codes.append(try await harness.membership.joinWaitlist(.init(app: app.id, email: email)).referralCode)
        }
        func position(_ index: Int) async throws -> Int32 {
            try await harness.membership.getWaitlistPosition(.init(app: app.id, email: emails[index], referralCode: codes[index])).position
        }
        // K joins with J's code: J (10th) moves to 5th, E…I move down one, K is 11th.
        let k = try await harness.membership.joinWaitlist(.init(app: app.id, email: IdentityHarness.uniqueEmail(), referralCode: codes[9]))
        #expect(k.position == 11)
        #expect(try await position(9) == 5)
        var order: [Int32] = []
        for index in 0..<10 { order.append(try await position(index)) }
        #expect(order == [1, 2, 3, 4, 6, 7, 8, 9, 10, 5])
        // J's second referral and C's first: standings C −2, J 0, A 1, B 2, D 4, E 5 … I 9.
        _ = try await harness.membership.joinWaitlist(.init(app: app.id, email: IdentityHarness.uniqueEmail(), referralCode: codes[9]))
        _ = try await harness.membership.joinWaitlist(.init(app: app.id, email: IdentityHarness.uniqueEmail(), referralCode: codes[2]))
        order = []
        for index in 0..<10 { order.append(try await position(index)) }
        #expect(order == [3, 4, 1, 5, 6, 7, 8, 9, 10, 2])
        let j = try await harness.membership.getWaitlistPosition(.init(app: app.id, email: emails[9], referralCode: codes[9]))
        #expect(j.referrals == 2)
        await harness.stop()
    }

    @Test func join_concurrently_sameEmailMakesOneEntry_andPositionsStayAPermutation() async throws {
        let app = try IdentityHarness.ownApp(like: "firstdate")
        let harness = try await IdentityHarness.start(adding: [app])
        let host = try await harness.member(app.id)
        try await harness.makeRole(host, "host")
        for round in 0..<3 {
            let email = IdentityHarness.uniqueEmail()
            async let a = harness.membership.joinWaitlist(.init(app: app.id, email: email))
            async let b = harness.membership.joinWaitlist(.init(app: app.id, email: email))
            let (first, second) = try await (a, b)
            #expect(first == second)
            #expect(first.position == Int32(round + 1))
        }
        let entries = try await withThrowingTaskGroup(of: Membership.WaitlistEntry.self) { group in
            for _ in 0..<8 {
                group.addTask { try await harness.membership.joinWaitlist(.init(app: app.id, email: IdentityHarness.uniqueEmail())) }
            }
            return try await group.reduce(into: [Membership.WaitlistEntry]()) { $0.append($1) }
        }
        #expect(Set(entries.map(\.position)) == Set(4...11))
        let count = try await harness.membership.getWaitlistCount(options: .bearer(host.accessToken))
        #expect(count.count == 11)
        await harness.stop()
    }

    @Test func join_refusals_eachWithItsReason() async throws {
        let app = try IdentityHarness.ownApp(like: "firstdate")
        let harness = try await IdentityHarness.start(adding: [app])
        let cases: [(Membership.JoinWaitlistRequest, StatusCode, String)] = [
            (.init(app: app.id, email: "not an email"), .invalidArgument, "INVALID_EMAIL"),
            (.init(app: app.id, email: IdentityHarness.uniqueEmail(), referralCode: "0OIL1!"), .invalidArgument, "INVALID_REFERRAL_CODE"),
            (.init(app: app.id, email: IdentityHarness.uniqueEmail(), referralCode: "ZZZZZZ"), .notFound, "REFERRAL_CODE_NOT_FOUND"),
            (.init(app: "elite", email: IdentityHarness.uniqueEmail()), .failedPrecondition, "PUBLIC_WAITLIST_NOT_OFFERED"),
            (.init(app: "nope", email: IdentityHarness.uniqueEmail()), .invalidArgument, "UNKNOWN_APP"),
        ]
        for (request, code, reason) in cases {
            let error = await rpcError { _ = try await harness.membership.joinWaitlist(request) }
            #expect(error?.code == code && error?.reason == reason, "\(reason)")
        }
        // A refused join leaves no entry behind.
        let email = IdentityHarness.uniqueEmail()
        _ = await rpcError { _ = try await harness.membership.joinWaitlist(.init(app: app.id, email: email, referralCode: "ZZZZZZ")) }
        let entry = try await harness.membership.joinWaitlist(.init(app: app.id, email: email))
        #expect(entry.position == 1)
        // A known email ignores a referral code: no credit for joining twice.
        let referrerEmail = IdentityHarness.uniqueEmail()
        let referrer = try await harness.membership.joinWaitlist(.init(app: app.id, email: referrerEmail))
        _ = try await harness.membership.joinWaitlist(.init(app: app.id, email: email, referralCode: referrer.referralCode))
        let referred = try await harness.membership.joinWaitlist(.init(app: app.id, email: IdentityHarness.uniqueEmail(),
                                                                       referralCode: referrer.referralCode))
        #expect(referred.position == 3)
        let credited = try await harness.membership.joinWaitlist(.init(app: app.id, email: referrerEmail))
        #expect(credited.referrals == 1 && credited.position == 1)
        await harness.stop()
    }

    @Test func waitlistCount_hostsAndAdminsOnly() async throws {
        let app = try IdentityHarness.ownApp(like: "firstdate")
        let harness = try await IdentityHarness.start(adding: [app])
        for _ in 0..<4 { _ = try await harness.membership.joinWaitlist(.init(app: app.id, email: IdentityHarness.uniqueEmail())) }
        let viewer = try await harness.signUp(app.id)
        let denied = await rpcError { _ = try await harness.membership.getWaitlistCount(options: .bearer(viewer.accessToken)) }
        #expect(denied?.code == .permissionDenied && denied?.reason == "ROLE_REQUIRED")
        let anonymous = await rpcError { _ = try await harness.membership.getWaitlistCount(options: .init()) }
        #expect(anonymous?.code == .unauthenticated)
        let host = try await harness.signUp(app.id)
        try await harness.makeRole(host, "host")
        #expect(try await harness.membership.getWaitlistCount(options: .bearer(host.accessToken)).count == 4)
        let admin = try await harness.admin(app.id)
        #expect(try await harness.membership.getWaitlistCount(options: .bearer(admin.accessToken)).count == 4)
        let eliteAdmin = try await harness.admin("elite")
        let noWaitlist = await rpcError { _ = try await harness.membership.getWaitlistCount(options: .bearer(eliteAdmin.accessToken)) }
        #expect(noWaitlist?.code == .failedPrecondition && noWaitlist?.reason == "PUBLIC_WAITLIST_NOT_OFFERED")
        await harness.stop()
    }
}

extension IdentityHarness {
    /// Gives the account `role` in the database (roles are read from there, not the token).
    func makeRole(_ session: Identity.AuthSession, _ role: String) async throws {
        try await execute("UPDATE identity.accounts SET role = $2 WHERE id = $1", [.uuid(try Self.id(session)), .text(role)])
    }
}
