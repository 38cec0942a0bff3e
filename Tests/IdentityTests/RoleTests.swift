import Contracts
import Foundation
@testable import Identity
import RPC
import TestSupport
import Testing

/// Roles over a live socket: applying, admins setting roles, events, and the operator's
/// `identity grant-role` run as the built executable.
@Suite struct RoleTests {
    @Test func becomeApplicant_movesAViewer_once_andEmitsOneRoleChanged() async throws {
        let harness = try await IdentityHarness.start()
        let viewer = try await harness.newUser("firstdate")
        let first = try await harness.profiles.becomeApplicant(options: viewer.options)
        #expect(first.changed && first.role == "applicant" && first.previousRole == "viewer" && first.accountID == viewer.id)
        let again = try await harness.profiles.becomeApplicant(options: viewer.options)
        #expect(!again.changed && again.role == "applicant")
        #expect(try await harness.client.getAccount(options: viewer.options).role == "applicant")
        #expect(try await harness.profiles.getMyProfile(options: viewer.options).role == "applicant")
        let events = try await harness.eventPayloads("RoleChanged", aggregateID: viewer.id)
        #expect(events.count == 1)
        let event = try Profiles.RoleChanged(serializedBytes: try #require(events.first))
        #expect(event.previousRole == "viewer" && event.role == "applicant" && event.changedBy == viewer.id)
        #expect(event.app == "firstdate" && event.changedAt != nil)
        await harness.stop()
    }

    @Test func becomeApplicant_concurrently_changesOnce() async throws {
        let harness = try await IdentityHarness.start()
        let viewer = try await harness.newUser("firstdate")
        async let a = harness.profiles.becomeApplicant(options: viewer.options)
        async let b = harness.profiles.becomeApplicant(options: viewer.options)
        let results = try await [a, b]
        #expect(results.filter(\.changed).count == 1 && results.allSatisfy { $0.role == "applicant" })
        #expect(try await harness.eventCount("RoleChanged", aggregateID: viewer.id) == 1)
        await harness.stop()
    }

    @Test func becomeApplicant_inAnAppWithoutApplications_orFromAnotherRole_isFailedPrecondition() async throws {
        let harness = try await IdentityHarness.start()
        let member = try await harness.newUser("swivo")
        expectError(await rpcError { _ = try await harness.profiles.becomeApplicant(options: member.options) },
                    .failedPrecondition, "APPLICATIONS_NOT_OFFERED")
        let host = try await harness.newUser("firstdate", role: "host")
        let error = await rpcError { _ = try await harness.profiles.becomeApplicant(options: host.options) }
        expectError(error, .failedPrecondition, "ROLE_TRANSITION_NOT_ALLOWED")
        #expect(error?.details["role"] == "host")
        await harness.stop()
    }

    @Test func setRole_byAnAdmin_setsAnyRoleOfTheApp_andEmitsRoleChanged() async throws {
        let harness = try await IdentityHarness.start()
        let admin = try await harness.newUser("firstdate", role: "admin")
        let viewer = try await harness.newUser("firstdate")
        let host = try await harness.profiles.setRole(.init(accountID: viewer.id, role: "host"), options: admin.options)
        #expect(host.changed && host.role == "host" && host.previousRole == "viewer")
        // The new host's power is read from the database at once, not from its old token.
        let hidden = try await harness.newUser("firstdate")
        try await harness.update(hidden, ["active"]) { $0.active = false }
        #expect(try await harness.profiles.getProfile(.init(accountID: hidden.id), options: viewer.options).accountID == hidden.id)
        let same = try await harness.profiles.setRole(.init(accountID: viewer.id, role: "host"), options: admin.options)
        #expect(!same.changed)
        let event = try Profiles.RoleChanged(serializedBytes: try #require(
            try await harness.eventPayloads("RoleChanged", aggregateID: viewer.id).last))
        #expect(event.changedBy == admin.id && event.role == "host")
        #expect(try await harness.eventCount("RoleChanged", aggregateID: viewer.id) == 1)
        await harness.stop()
    }

    /// An admin is an active member: a waitlisted ÉLITE account made admin leaves the waitlist
    /// with a MembershipApproved (discovery's projection learns of its admission from it); an
    /// active member made admin, or a waitlisted one given another role, emits none.
    @Test func setRole_admin_ofAWaitlistedAccount_approvesItsMembership() async throws {
        let harness = try await IdentityHarness.start()
        let admin = try await harness.newUser("elite", role: "admin")
        let waiting = try await harness.newUser("elite", admitted: false)
        let other = try await harness.newUser("elite", admitted: false)
        let member = try await harness.newUser("elite")
        _ = try await harness.profiles.setRole(.init(accountID: waiting.id, role: "admin"), options: admin.options)
        let approved = try Membership.MembershipApproved(serializedBytes: try #require(
            try await harness.eventPayloads("MembershipApproved", aggregateID: waiting.id).last))
        #expect(approved.accountID == waiting.id && approved.method == .committee && approved.approvedByAccountID == admin.id)
        _ = try await harness.profiles.setRole(.init(accountID: member.id, role: "admin"), options: admin.options)
        #expect(try await harness.eventCount("MembershipApproved", aggregateID: member.id) == 0)
        let notAdmin = await rpcError { _ = try await harness.profiles.setRole(.init(accountID: other.id, role: "member"), options: admin.options) }
        #expect(notAdmin == nil)
        #expect(try await harness.eventCount("MembershipApproved", aggregateID: other.id) == 0)
        await harness.stop()
    }

    @Test func setRole_unhappyPaths() async throws {
        let harness = try await IdentityHarness.start()
        let admin = try await harness.newUser("firstdate", role: "admin")
        let viewer = try await harness.newUser("firstdate")
        let host = try await harness.newUser("firstdate", role: "host")
        // Only admins: not viewers, not hosts.
        for caller in [viewer, host] {
            expectError(await rpcError { _ = try await harness.profiles.setRole(.init(accountID: viewer.id, role: "host"), options: caller.options) },
                        .permissionDenied, "ADMIN_ONLY")
        }
        // Roles come from the app's policy: FirstDate has no "member".
        let unknown = await rpcError { _ = try await harness.profiles.setRole(.init(accountID: viewer.id, role: "member"), options: admin.options) }
        expectError(unknown, .invalidArgument, "UNKNOWN_ROLE")
        expectError(await rpcError { _ = try await harness.profiles.setRole(.init(accountID: admin.id, role: "viewer"), options: admin.options) },
                    .failedPrecondition, "CANNOT_CHANGE_OWN_ROLE")
        // Another app's admin has no power here, and another app's account is not found.
        let eliteAdmin = try await harness.newUser("elite", role: "admin")
        expectError(await rpcError { _ = try await harness.profiles.setRole(.init(accountID: viewer.id, role: "admin"), options: eliteAdmin.options) },
                    .notFound, "USER_NOT_FOUND")
        expectError(await rpcError { _ = try await harness.profiles.setRole(.init(accountID: "nope", role: "host"), options: admin.options) },
                    .invalidArgument, "INVALID_ACCOUNT_ID")
        #expect(try await harness.client.getAccount(options: viewer.options).role == "viewer")
        await harness.stop()
    }

    // MARK: - identity grant-role

    @Test func grantRole_cli_makesTheFirstAdmin_byEmailOrUsername() async throws {
        let harness = try await IdentityHarness.start()
        let email = IdentityHarness.uniqueEmail()
        let session = try await harness.client.signUpWithEmail(.init(app: "firstdate", email: email, password: "correct horse battery"))
        let account = try #require(session.account)
        let user = TestUser(id: account.id, app: "firstdate", username: account.username, accessToken: session.accessToken)
        let viewer = try await harness.newUser("firstdate")
        expectError(await rpcError { _ = try await harness.profiles.setRole(.init(accountID: viewer.id, role: "host"), options: user.options) },
                    .permissionDenied, "ADMIN_ONLY")

        let granted = try await Self.grantRole(["--app", "firstdate", "--email", email.uppercased(), "--role", "admin"])
        #expect(granted.exitCode == 0, "\(granted.output)")
        #expect(granted.output.contains("is now admin (was viewer)"))
        let promoted = try await harness.profiles.setRole(.init(accountID: viewer.id, role: "host"), options: user.options)
        #expect(promoted.changed)
        let event = try Profiles.RoleChanged(serializedBytes: try #require(
            try await harness.eventPayloads("RoleChanged", aggregateID: user.id).last))
        #expect(event.role == "admin" && event.changedBy.isEmpty)

        let again = try await Self.grantRole(["--app", "firstdate", "--username", viewer.username, "--role", "host"])
        #expect(again.exitCode == 0 && again.output.contains("already host"), "\(again.output)")
        await harness.stop()
    }

    @Test func grantRole_cli_admin_ofAnInviteOnlyApp_leavesTheWaitlist() async throws {
        let harness = try await IdentityHarness.start()
        let email = IdentityHarness.uniqueEmail()
        let session = try await harness.client.signUpWithEmail(.init(app: "elite", email: email, password: "correct horse battery"))
        #expect(session.account?.membershipStatus == "waitlisted")
        let granted = try await Self.grantRole(["--app", "elite", "--email", email, "--role", "admin"])
        #expect(granted.exitCode == 0, "\(granted.output)")
        let refreshed = try await harness.client.refreshSession(.init(refreshToken: session.refreshToken))
        #expect(refreshed.account?.role == "admin" && refreshed.account?.membershipStatus == "active")
        #expect(try accessTokenClaims(refreshed.accessToken).string("ms") == "active")
        await harness.stop()
    }

    @Test func grantRole_cli_unknownAccount_exits1_badArguments_exit2() async throws {
        let missing = try await Self.grantRole(["--app", "elite", "--email", IdentityHarness.uniqueEmail(), "--role", "admin"])
        #expect(missing.exitCode == 1 && missing.output.contains("no account"), "\(missing.output)")
        for arguments in [["--app", "firstdate", "--email", "a@b.co", "--role", "member"],
                          ["--app", "nowhere", "--email", "a@b.co", "--role", "admin"],
                          ["--app", "elite", "--role", "admin"],
                          ["--app", "elite", "--email", "a@b.co", "--username", "x", "--role", "admin"],
                          ["--app", "elite", "--email", "not an email", "--role", "admin"],
                          ["--app", "elite", "--account-id", "42", "--role", "admin"],
                          ["--frobnicate"]] {
            let result = try await Self.grantRole(arguments)
            #expect(result.exitCode == 2 && result.output.contains("usage:"), "\(arguments): \(result.output)")
        }
    }

    /// Runs the built `identity grant-role` against the test cluster.
    static func grantRole(_ arguments: [String]) async throws -> SubprocessResult {
        let password = TestDatabase.environment["RV_PG_PASSWORD_IDENTITY"] ?? "rv_identity_local"
        let url = "postgresql://rv_identity:\(password)@\(TestDatabase.host):\(TestDatabase.port)/\(TestDatabase.database)"
        return try await Subprocess.run(try RepositoryPaths.builtExecutable("identity"), ["grant-role"] + arguments,
                                        environment: ["RV_PG_URL_IDENTITY": url], timeout: .seconds(60))
    }
}

/// The role model as data, without the database.
@Suite struct RolePolicyTests {
    @Test func everyAppsRoles_includeItsDefaultAndAdmin_andItsReadersAndApplicantRole() throws {
        for app in AppPolicies.standard.appIDs {
            let policy = try AppPolicies.standard.policy(for: app)
            #expect(policy.roles.contains(policy.defaultRole), "\(app)")
            #expect(policy.roles.contains(Authorization.adminRole), "\(app)")
            #expect(policy.profileReaderRoles.isSubset(of: Set(policy.roles)), "\(app)")
            if let applicant = policy.applicantRole { #expect(policy.roles.contains(applicant), "\(app)") }
        }
        #expect(try AppPolicies.standard.policy(for: "firstdate").roles == ["viewer", "applicant", "host", "admin"])
        #expect(try AppPolicies.standard.policy(for: "momento").minimumAge == nil)
        #expect(try AppPolicies.standard.policy(for: "elite").minimumAge == 18)
    }
}
