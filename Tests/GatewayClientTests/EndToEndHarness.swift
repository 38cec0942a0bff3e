import Foundation
import GatewayClient
import GatewayClientHTTP2
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

    /// A fresh phone number (E.164, +1 555 and 11 random digits): numbers keep their codes and
    /// send limits in the shared schema across runs.
    static func uniquePhone() -> String {
        "+1555" + String(format: "%011llu", UInt64.random(in: 0..<100_000_000_000))
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
/// schema `identity` of the local cluster, and what the tests need to play every party:
/// Apple's and Google's ID token keys are the test's own (`ProviderTokens`), the push sender
/// `messaging` has a service credential, and logs are JSON lines from `notice` up, so the
/// phone codes the development sender logs can be read back (`EndToEndServiceProcess.phoneCode`).
struct IdentityServiceTrait: SuiteTrait, TestScoping {
    /// Variables added to (or replacing) the standard ones, e.g. a short phone code lifetime.
    var environment: [String: String] = [:]

    /// The service credential the executable accepts, for DevicesInternal calls.
    static let messagingSecret = "e2e-messaging-secret-0123456789abcdef"

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        // Fails with the db.sh hint when Postgres is down, rather than a start-up timeout.
        try await TestDatabase.makePool(TestDatabase.configuration(role: "identity", poolSize: 1)).close()
        let jwks = try ProviderTokens.shared.jwksJSON()
        let standard = [
            "RV_IDENTITY_PORT": "0",
            "RV_PG_URL_IDENTITY": EndToEnd.postgresURL(role: "identity"),
            "RV_LOG_LEVEL": "notice",
            "RV_LOG_FORMAT": "json",
            "RV_IDENTITY_APPLE_JWKS": jwks,
            "RV_IDENTITY_GOOGLE_JWKS": jwks,
            "RV_SERVICE_CREDENTIALS": "messaging=\(Self.messagingSecret)",
        ]
        let process = try await EndToEndServiceProcess.start(
            "identity", environment: standard.merging(environment) { _, override in override })
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

    /// Runs the suite against an `identity` executable of its own, started with `environment`
    /// on top of the standard variables.
    static func identityService(environment: [String: String]) -> Self {
        IdentityServiceTrait(environment: environment)
    }
}
