import Contracts
import Foundation
import RPC
import TestSupport
import Testing

/// The real `identity` and `discovery` executables, started once for a suite (the
/// `.discoveryServices` trait) against the local Postgres, discovery following identity's
/// events with a service credential identity accepts, as `make run` wires them. Tests call
/// them over the wire with the generated clients, each user with its own bearer token.
enum DiscoveryHarness {
    @TaskLocal static var processes: (identity: EndToEndServiceProcess, discovery: EndToEndServiceProcess)?

    static let discoverySecret = "discovery-tests-discovery-secret-0123456789"
    static let messagingSecret = "discovery-tests-messaging-secret-0123456789"

    static var identityPort: Int {
        get throws {
            guard let processes else { throw SubprocessError(message: "this suite needs the .discoveryServices trait") }
            return processes.identity.port
        }
    }

    static var discoveryPort: Int {
        get throws {
            guard let processes else { throw SubprocessError(message: "this suite needs the .discoveryServices trait") }
            return processes.discovery.port
        }
    }

    static func postgresURL(role: String) -> String {
        let configuration = TestDatabase.configuration(role: role)
        return "postgresql://\(configuration.user):\(configuration.password ?? "")@\(configuration.host):\(configuration.port)/\(configuration.database)"
    }
}

struct DiscoveryServicesTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        try await TestDatabase.makePool(TestDatabase.configuration(role: "discovery", poolSize: 1)).close()
        let identity = try await EndToEndServiceProcess.start("identity", environment: [
            "RV_IDENTITY_PORT": "0", "RV_IDENTITY_ADMIN_PORT": "0", "RV_PG_URL_IDENTITY": DiscoveryHarness.postgresURL(role: "identity"),
            "RV_LOG_LEVEL": "warning", "RV_SERVICE_CREDENTIALS": "discovery=\(DiscoveryHarness.discoverySecret)",
        ])
        let discovery: EndToEndServiceProcess
        do {
            discovery = try await EndToEndServiceProcess.start("discovery", environment: [
                "RV_DISCOVERY_PORT": "0", "RV_DISCOVERY_ADMIN_PORT": "0",
                "RV_PG_URL_DISCOVERY": DiscoveryHarness.postgresURL(role: "discovery"),
                "RV_IDENTITY_ADDRESS": "127.0.0.1:\(identity.port)", "RV_LOG_LEVEL": "warning",
                "RV_SERVICE_NAME": "discovery", "RV_SERVICE_SECRET": DiscoveryHarness.discoverySecret,
                "RV_SERVICE_CREDENTIALS": "messaging=\(DiscoveryHarness.messagingSecret)",
            ])
        } catch {
            await identity.stop()
            throw error
        }
        do {
            try await DiscoveryHarness.$processes.withValue((identity, discovery)) { try await function() }
        } catch {
            print("discovery log:\n\(discovery.log)\nidentity log:\n\(identity.log)")
            await discovery.stop()
            await identity.stop()
            throw error
        }
        await discovery.stop()
        await identity.stop()
    }
}

extension Trait where Self == DiscoveryServicesTrait {
    /// Runs the suite against `identity` and `discovery` executables of its own.
    static var discoveryServices: Self { DiscoveryServicesTrait() }
}
