import RPC
import Testing

/// grpc.health.v1.Health served by every RPCServer.
@Suite struct HealthLiveTests {
    static let check = "/grpc.health.v1.Health/Check"
    static let watch = "/grpc.health.v1.Health/Watch"

    static func check(_ client: RPCClient, _ service: String) async throws -> HealthCheckResponse.ServingStatus {
        try await client.unary(path: check, request: HealthCheckRequest(service: service), as: HealthCheckResponse.self).message.status
    }

    @Test(arguments: ["", EchoService.name])
    func check_serverOrRegisteredService_isServing(service: String) async throws {
        try await withServer { _, client in
            let status = try await Self.check(client, service)
            #expect(status == .serving)
        }
    }

    @Test func check_unknownService_isNotFound() async throws {
        try await withServer { _, client in
            let error = await rpcError { _ = try await Self.check(client, "rv.test.Nobody") }
            #expect(error?.code == .notFound)
        }
    }

    @Test func check_afterSetStatus_reportsTheNewStatus() async throws {
        try await withServer { server, client in
            server.health.setStatus(.notServing, for: EchoService.name)
            let echoStatus = try await Self.check(client, EchoService.name)
            let serverStatus = try await Self.check(client, "")
            #expect(echoStatus == .notServing)
            #expect(serverStatus == .serving)
        }
    }

    @Test func watch_receivesServing_thenNotServing_afterSetStatus() async throws {
        try await withServer { server, client in
            let call = try await client.serverStreaming(path: Self.watch, request: HealthCheckRequest(service: EchoService.name),
                                                        as: HealthCheckResponse.self)
            var updates = call.makeAsyncIterator()
            #expect(try await updates.next()?.status == .serving)
            server.health.setStatus(.notServing, for: EchoService.name)
            #expect(try await updates.next()?.status == .notServing)
            server.health.setStatus(.serving, for: EchoService.name)
            #expect(try await updates.next()?.status == .serving)
            call.cancel()
        }
    }

    /// Readiness (Postgres down, consumers behind) turns the server and its services NOT_SERVING
    /// and back; `liveness`, which liveness probes ask, stays SERVING throughout.
    @Test func setReadiness_movesServerAndServices_butNotLiveness() async throws {
        try await withServer { server, client in
            let call = try await client.serverStreaming(path: Self.watch, request: HealthCheckRequest(service: ""),
                                                        as: HealthCheckResponse.self)
            var updates = call.makeAsyncIterator()
            #expect(try await updates.next()?.status == .serving)
            server.health.setReadiness(false)
            #expect(try await updates.next()?.status == .notServing)
            #expect(try await Self.check(client, "") == .notServing)
            #expect(try await Self.check(client, EchoService.name) == .notServing)
            #expect(try await Self.check(client, HealthService.livenessService) == .serving)
            server.health.setReadiness(true)
            #expect(try await updates.next()?.status == .serving)
            #expect(try await Self.check(client, EchoService.name) == .serving)
            call.cancel()
        }
    }

    @Test func watch_unknownService_reportsServiceUnknown_thenItsFirstStatus() async throws {
        try await withServer { server, client in
            let call = try await client.serverStreaming(path: Self.watch, request: HealthCheckRequest(service: "rv.test.Late"),
                                                        as: HealthCheckResponse.self)
            var updates = call.makeAsyncIterator()
            #expect(try await updates.next()?.status == .serviceUnknown)
            server.health.setStatus(.serving, for: "rv.test.Late")
            #expect(try await updates.next()?.status == .serving)
            call.cancel()
        }
    }

    @Test func watch_seesNotServing_whenShutdownStarts() async throws {
        try await withServer { server, client in
            let call = try await client.serverStreaming(path: Self.watch, request: HealthCheckRequest(service: ""),
                                                        as: HealthCheckResponse.self)
            var updates = call.makeAsyncIterator()
            #expect(try await updates.next()?.status == .serving)
            let shutdown = Task { await server.shutdown(gracePeriod: .milliseconds(500)) }
            #expect(try await updates.next()?.status == .notServing)
            await shutdown.value
        }
    }

    @Test func check_afterShutdownStarts_isNotServingOrUnavailable() async throws {
        let probe = Probe()
        try await withServer(services: [EchoService(probe: probe)]) { server, client in
            // Keeps the connection open through the grace period.
            let inFlight = Task {
                try await client.unary(path: EchoService.path("Sleep"), request: TestMessage(number: 800), as: TestMessage.self)
            }
            #expect(await probe.wait(for: "started"))
            let shutdown = Task { await server.shutdown(gracePeriod: .seconds(3)) }
            while server.health.status(of: "") != .notServing { try await Task.sleep(for: .milliseconds(1)) }
            do {
                #expect(try await Self.check(client, "") == .notServing)
            } catch let error as RPCError {
                #expect(error.code == .unavailable)
            }
            _ = try await inFlight.value
            await shutdown.value
        }
    }
}
