import Contracts
import Foundation
@testable import Identity
import Runtime
import TestSupport
import Testing

/// Apps from `RV_IDENTITY_APPS_FILE`: a standard app's policy changed by configuration, a new
/// product added without code, and every malformed file refused at start-up naming the variable.
@Suite struct AppPoliciesFileTests {
    static let file = """
        {"apps": [
          {"id": "firstdate", "minimum_age": 21},
          {"id": "sparks", "sign_in_methods": ["anonymous", "email"], "roles": ["member", "moderator", "admin"],
           "profile_reader_roles": ["moderator", "admin"], "minimum_password_length": 12}
        ]}
        """

    @Test func aConfiguredApp_servesSignIn_andAChangedPolicyIsEnforced_overTheWire() async throws {
        let apps = try AppPoliciesFile.apply(Array(Self.file.utf8), onto: .standard)
        let harness = try await IdentityHarness.start { $0.apps = apps }

        let newcomer = try await harness.client.signInAnonymously(.init(app: "sparks"))
        #expect(newcomer.account?.app == "sparks" && newcomer.account?.role == "member")
        #expect(try accessTokenClaims(newcomer.accessToken).string("app") == "sparks")
        let weak = await rpcError {
            _ = try await harness.client.signUpWithEmail(.init(app: "sparks", email: IdentityHarness.uniqueEmail(),
                                                               password: "eleven char"))
        }
        #expect(weak?.code == .invalidArgument && weak?.reason == "WEAK_PASSWORD" && weak?.details["minimum_length"] == "12")

        // FirstDate now asks for 21: a 20-year-old is refused, which the standard policy allows.
        let viewer = try await harness.newUser("firstdate")
        let underage = await rpcError {
            try await harness.update(viewer, ["birth_date"]) { $0.birthDate = ProfileTests.date(yearsAgo: 20) }
        }
        #expect(underage?.code == .invalidArgument && underage?.reason == "UNDERAGE" && underage?.details["minimum_age"] == "21")
        // Untouched keys keep the standard values.
        #expect(try apps.policy(for: "firstdate").publicWaitlist == AppPolicies.standard.policy(for: "firstdate").publicWaitlist)
        await harness.stop()
    }

    @Test func membersOnlyUntilAdmitted_isEliteByDefault_andAKeyOfTheFile() throws {
        #expect(try AppPolicies.standard.policy(for: "elite").membersOnlyUntilAdmitted)
        #expect(try !AppPolicies.standard.policy(for: "firstdate").membersOnlyUntilAdmitted)
        let json = #"{"apps": [{"id": "elite", "members_only_until_admitted": false}, {"id": "sparks", "members_only_until_admitted": true}]}"#
        let apps = try AppPoliciesFile.apply(Array(json.utf8), onto: .standard)
        #expect(try apps.policy(for: "elite").admits(membershipStatus: "waitlisted"))
        let sparks = try apps.policy(for: "sparks")
        #expect(sparks.admits(membershipStatus: "active"))
        #expect(!sparks.admits(membershipStatus: "waitlisted") && !sparks.admits(membershipStatus: "rejected"))
    }

    @Test(arguments: [
        (#"{"apps": [{"id": "sparks", "colour": "red"}]}"#, "unknown key colour"),
        (#"{"apps": [{"id": "sparks", "default_role": "host"}]}"#, "default_role host is not in roles"),
        (#"{"apps": [{"id": "sparks", "roles": ["member"]}]}"#, "roles must include admin"),
        (#"{"apps": [{"id": "sparks", "sign_in_methods": ["fax"]}]}"#, "sign_in_methods must list"),
        (#"{"apps": [{"id": "sparks"}, {"id": "sparks"}]}"#, "listed twice"),
        (#"{"apps": [{"id": "Sparks!"}]}"#, "app id"),
        (#"{"apps": [{"id": "elite", "minimum_age": 300}]}"#, "minimum_age is 0…120"),
        (#"{"apps": [{"id": "elite", "initial_membership_status": "maybe"}]}"#, "initial_membership_status"),
        (#"{"apps": [{"sign_in_methods": ["email"]}]}"#, "missing id"),
        (#"{"apps": "#, "not a valid apps file"),
    ])
    func aMalformedFile_isAConfigurationError_namingTheVariable(_ json: String, _ message: String) throws {
        #expect {
            _ = try AppPoliciesFile.apply(Array(json.utf8), onto: .standard)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.variable == "RV_IDENTITY_APPS_FILE" && error.message.contains(message)
        }
    }

    @Test func theExecutable_withAMalformedFile_exitsWithStatus2_namingTheVariable() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(TestDatabase.uniqueName("apps") + ".json").path
        try Data(#"{"apps": [{"id": "sparks", "roles": ["member"]}]}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await Subprocess.run(try RepositoryPaths.builtExecutable("identity"), [],
                                              environment: ["RV_IDENTITY_APPS_FILE": path, "RV_IDENTITY_PORT": "0",
                                                            "RV_IDENTITY_ADMIN_PORT": "0"],
                                              timeout: .seconds(60))
        #expect(result.exitCode == 2)
        #expect(result.output.contains("RV_IDENTITY_APPS_FILE") && result.output.contains("roles must include admin"), "\(result.output)")
    }

    @Test func grantRole_knowsTheConfiguredApps() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(TestDatabase.uniqueName("apps") + ".json").path
        try Data(Self.file.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let apps = try AppPoliciesFile.apply(Array(Self.file.utf8), onto: .standard)
        let harness = try await IdentityHarness.start { $0.apps = apps }
        let email = IdentityHarness.uniqueEmail()
        let member = try await harness.client.signUpWithEmail(.init(app: "sparks", email: email, password: "twelve chars!"))
        await harness.stop()

        let password = TestDatabase.environment["RV_PG_PASSWORD_IDENTITY"] ?? "rv_identity_local"
        let url = "postgresql://rv_identity:\(password)@\(TestDatabase.host):\(TestDatabase.port)/\(TestDatabase.database)"
        let granted = try await Subprocess.run(try RepositoryPaths.builtExecutable("identity"),
                                               ["grant-role", "--app", "sparks", "--email", email, "--role", "moderator"],
                                               environment: ["RV_PG_URL_IDENTITY": url, "RV_IDENTITY_APPS_FILE": path],
                                               timeout: .seconds(60))
        #expect(granted.exitCode == 0, "\(granted.output)")
        let unknown = try await Subprocess.run(try RepositoryPaths.builtExecutable("identity"),
                                               ["grant-role", "--app", "sparks", "--email", email, "--role", "moderator"],
                                               environment: ["RV_PG_URL_IDENTITY": url], timeout: .seconds(60))
        #expect(unknown.exitCode == 2 && unknown.output.contains("unknown app sparks"), "\(unknown.output)")
        #expect(member.account?.role == "member")
    }
}
