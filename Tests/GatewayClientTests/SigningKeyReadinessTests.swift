import Contracts
import Foundation
import RPC
import Testing
import TestSupport

/// A service that verifies access tokens is ready only once it holds identity's signing keys.
/// Started before identity can answer (its Pod scheduled first, a resolver that stalls for
/// tens of seconds), it says NOT ready, so the platform holds its traffic back, rather than
/// failing every signed-in call with UNAVAILABLE KEYS_UNAVAILABLE while reporting ready.
@Suite(.serialized) struct SigningKeyReadinessTests {
    @Test func startedBeforeIdentity_notReadyUntilItHasTheKeys_thenReadyWhileIdentityIsAway() async throws {
        let identityPort = try LocalPort.free()
        let adminPort = try LocalPort.free()
        let discovery = try await EndToEndServiceProcess.start("discovery", environment: [
            "RV_DISCOVERY_PORT": "0", "RV_DISCOVERY_ADMIN_PORT": String(adminPort),
            "RV_PG_URL_DISCOVERY": DiscoveryStack.postgresURL(role: "discovery"),
            "RV_IDENTITY_ADDRESS": "127.0.0.1:\(identityPort)", "RV_LOG_LEVEL": "error",
            "RV_SERVICE_NAME": "discovery", "RV_SERVICE_SECRET": DiscoveryStack.discoverySecret,
            // Only the keys decide here: the consumer-lag check (identity's events) stays out of it.
            "RV_EVENT_LAG_BOUND_SECONDS": "0",
        ])
        var identity: EndToEndServiceProcess?
        do {
            try await check()
        } catch {
            await identity?.stop()
            await discovery.stop()
            throw error
        }
        await identity?.stop()
        await discovery.stop()

        func check() async throws {
            // From the moment it says where it listens, grpc.health.v1 (what a readiness probe
            // asks) agrees with /readyz: no window of SERVING before the checks ran.
            let client = RPCClient(host: "127.0.0.1", port: discovery.port)
            defer { client.close() }
            let health = try await client.unary(path: "/grpc.health.v1.Health/Check", request: HealthCheckRequest(),
                                                as: HealthCheckResponse.self).message.status
            #expect(health == .notServing)

            let notReady = try await Self.readyz(adminPort, until: { $0.status == 503 && $0.body.contains("signing keys") })
            #expect(notReady?.body == "signing keys: none fetched from identity yet\n", "\(notReady?.body ?? "no 503 within 10 s")")

            identity = try await DiscoveryStack.startIdentity(
                credentials: "discovery=\(DiscoveryStack.discoverySecret)",
                environment: ["RV_IDENTITY_PORT": String(identityPort)])
            let ready = try await Self.readyz(adminPort, until: { $0.status == 200 })
            #expect(ready?.body == "ready\n", "not ready within 10 s of identity starting:\n\(discovery.log)")

            // With a key set in hand, identity being away changes nothing for readiness.
            await identity?.stop()
            identity = nil
            for _ in 0..<3 {
                try await Task.sleep(for: .seconds(1))
                #expect(try await HTTPProbe.get("/readyz", port: adminPort).status == 200)
            }
        }
    }

    /// Polls `/readyz` every 100 ms for up to 10 s until `condition` holds; that response, or nil.
    static func readyz(_ port: Int, until condition: (HTTPProbe.Response) -> Bool) async throws -> HTTPProbe.Response? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let response = try? await HTTPProbe.get("/readyz", port: port, timeoutSeconds: 3), condition(response) {
                return response
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }
}
