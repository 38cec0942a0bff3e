import Contracts
import Logging
import RPC
@testable import Runtime
import ServiceLifecycle
import Testing
import TestSupport

/// The shutdown sequence in-process: the same services `ServiceMain` hands to a `ServiceGroup`,
/// triggered without a signal.
@Suite struct GracefulShutdownTests {
    typealias Messages = GRPCTesting

    @Test func gracefulShutdown_drainsInFlightCall_whileReadyzSays503() async throws {
        let harness = try RuntimeHarness()
        let logger = harness.logs.logger(label: "lifecycle")
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [
                .init(service: AdminService(server: harness.admin)),
                .init(service: RPCServerService(server: harness.server, readiness: harness.readiness,
                                                gracePeriod: .seconds(10), logger: logger)),
            ],
            logger: logger))
        let running = Task { try await group.run() }

        #expect(try await HTTPProbe.get("/readyz", port: harness.adminPort).status == 200)
        let client = harness.makeClient()
        let call = try await client.serverStreaming(
            path: "/\(ProbeService.name)/Slow", request: ProbeService.slowRequest(responses: 4, interval: .milliseconds(300)),
            as: Messages.StreamingOutputCallResponse.self)
        var responses = call.makeAsyncIterator()
        _ = try await responses.next()

        await group.triggerGracefulShutdown()
        var readyzDuringDrain: Int?
        for _ in 0..<50 where readyzDuringDrain == nil {
            let status = try await HTTPProbe.get("/readyz", port: harness.adminPort).status
            if status == 503 { readyzDuringDrain = status } else { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(readyzDuringDrain == 503)
        #expect(harness.server.health.status(of: "") == .notServing)

        var received = 1
        while try await responses.next() != nil { received += 1 }
        #expect(received == 4)
        #expect(await call.status().code == .ok)
        try await running.value
        client.close()
        await #expect(throws: (any Error).self) { _ = try await HTTPProbe.get("/healthz", port: harness.adminPort) }
    }
}
