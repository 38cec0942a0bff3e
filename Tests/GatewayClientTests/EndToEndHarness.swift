import Foundation
import GatewayClient
import TestSupport
import Testing

/// End-to-end tests drive the real service executables through `GatewayClient` only, as an
/// app would. A suite asks for the services it needs with a trait, which starts each
/// executable once for the whole suite against the local Postgres and stops it afterwards:
///
/// ```swift
/// @Suite(.identityService) struct EndToEndProfileTests {
///     @Test func ... { let client = try EndToEnd.client(app: "firstdate") ... }
/// }
/// ```
///
/// A new area adds a file of tests like that (and, for a new executable, a trait like
/// `IdentityServiceTrait` beside this one).
enum EndToEnd {
    /// The identity executable of the running suite.
    @TaskLocal static var identityProcess: EndToEndServiceProcess?

    /// The running identity executable; fails the test clearly when the suite lacks the trait.
    static var identity: EndToEndServiceProcess {
        get throws {
            guard let identityProcess else {
                throw SubprocessError(message: "this suite needs the .identityService trait")
            }
            return identityProcess
        }
    }

    /// A client of `app` talking to the identity executable, with its own token store.
    static func client(app: String, store: any TokenStore = InMemoryTokenStore(), deviceName: String = "e2e",
                       configure: (inout GatewayConfiguration) -> Void = { _ in }) throws -> GatewayClient {
        var configuration = GatewayConfiguration(host: "127.0.0.1", port: try identity.port, security: .plaintext,
                                                 app: app, deviceName: deviceName)
        configure(&configuration)
        return try GatewayClient(configuration: configuration, tokenStore: store)
    }

    /// A fresh email address, so tests never collide in the shared schema.
    static func uniqueEmail() -> String {
        "\(TestDatabase.uniqueName("gw"))@example.com"
    }

    /// The Postgres URL of role `role` on the cluster `compose/local/db.sh` runs.
    static func postgresURL(role: String) -> String {
        let configuration = TestDatabase.configuration(role: role)
        return "postgresql://\(configuration.user):\(configuration.password ?? "")@\(configuration.host):\(configuration.port)/\(configuration.database)"
    }
}

/// Starts the `identity` executable once for the suite it is attached to: any free port,
/// schema `identity` of the local cluster, warnings-only logs.
struct IdentityServiceTrait: SuiteTrait, TestScoping {
    /// Further variables for the executable (say `RV_IDENTITY_APPSTORE_ROOT_CERT_FILE`); they
    /// win over the ones above.
    var environment: [String: String] = [:]

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        // Fails with the db.sh hint when Postgres is down, rather than a start-up timeout.
        try await TestDatabase.makePool(TestDatabase.configuration(role: "identity", poolSize: 1)).close()
        let process = try await EndToEndServiceProcess.start("identity", environment: [
            "RV_IDENTITY_PORT": "0",
            "RV_PG_URL_IDENTITY": EndToEnd.postgresURL(role: "identity"),
            "RV_LOG_LEVEL": "warning",
        ].merging(environment) { _, extra in extra })
        do {
            try await EndToEnd.$identityProcess.withValue(process) { try await function() }
        } catch {
            print("identity log:\n\(process.log)")
            await process.stop()
            throw error
        }
        await process.stop()
    }
}

extension Trait where Self == IdentityServiceTrait {
    /// Runs the suite against the `identity` executable.
    static var identityService: Self { IdentityServiceTrait() }
}
