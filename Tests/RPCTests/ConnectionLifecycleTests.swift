import RPC
import Testing

/// Servers that stop, restart and drain; clients that reconnect.
@Suite struct ConnectionLifecycleTests {
    static func makeServer(port: Int = 0, probe: Probe = Probe()) throws -> RPCServer {
        var configuration = RPCServerConfiguration()
        configuration.port = port
        configuration.loopCount = 1
        let server = try RPCServer(configuration: configuration, services: [EchoService(probe: probe)])
        try server.start()
        return server
    }

    static func echo(_ client: RPCClient, _ text: String = "hi", timeout: Duration = .seconds(5)) async throws -> String {
        try await client.unary(path: EchoService.path("Echo"), request: TestMessage(text: text), as: TestMessage.self,
                               options: CallOptions(timeout: timeout)).message.text
    }

    @Test func serverGone_callsFailUnavailable_thenClientReconnectsToNewServerOnSamePort() async throws {
        let first = try Self.makeServer()
        let port = first.port
        let client = RPCClient(host: "127.0.0.1", port: port)
        defer { client.close() }
        #expect(try await Self.echo(client) == "hi")

        await first.shutdown(gracePeriod: .zero)
        for _ in 0..<3 {
            let (error, duration) = await elapsed { await rpcError { _ = try await Self.echo(client) } }
            #expect(error?.code == .unavailable)
            #expect(duration < .seconds(2))
        }

        let second = try Self.makeServer(port: port)
        #expect(second.port == port)
        #expect(try await Self.echo(client, "again") == "again")
        await second.shutdown(gracePeriod: .seconds(1))
    }

    @Test func neverStartedServer_callFailsUnavailable() async throws {
        let probeServer = try Self.makeServer()
        let port = probeServer.port
        await probeServer.shutdown(gracePeriod: .zero)
        let client = RPCClient(host: "127.0.0.1", port: port)
        defer { client.close() }
        let error = await rpcError { _ = try await Self.echo(client) }
        #expect(error?.code == .unavailable)
    }

    @Test func callInFlight_whenServerCloses_failsUnavailable() async throws {
        let probe = Probe()
        let server = try Self.makeServer(probe: probe)
        let client = RPCClient(host: "127.0.0.1", port: server.port)
        defer { client.close() }
        let call = Task {
            try await client.unary(path: EchoService.path("Sleep"), request: TestMessage(number: 10_000), as: TestMessage.self)
        }
        #expect(await probe.wait(for: "started"))
        let (error, duration) = await elapsed {
            await server.shutdown(gracePeriod: .milliseconds(100))
            return await rpcError { _ = try await call.value }
        }
        #expect(error?.code == .unavailable)
        #expect(duration < .seconds(2))
        #expect(await probe.wait(for: "cancelled", timeout: .seconds(2)))
    }

    @Test func gracefulShutdown_letsInFlightCallFinish_andRefusesNewCalls() async throws {
        let probe = Probe()
        let server = try Self.makeServer(probe: probe)
        let client = RPCClient(host: "127.0.0.1", port: server.port)
        defer { client.close() }
        let inFlight = Task {
            try await client.unary(path: EchoService.path("Sleep"), request: TestMessage(number: 500), as: TestMessage.self)
        }
        #expect(await probe.wait(for: "started"))
        let (_, duration) = await elapsed { await server.shutdown(gracePeriod: .seconds(2)) }
        let response = try await inFlight.value
        #expect(response.message.number == 500)
        #expect(probe.count(of: "finished") == 1)
        #expect(duration < .milliseconds(1_900), "shutdown returns once the last call ended, not after the grace period")

        let error = await rpcError { _ = try await Self.echo(client) }
        #expect(error?.code == .unavailable)
    }

    /// A subscription (`endWhenServerDrains`) ends with UNAVAILABLE as soon as the server drains,
    /// so the shutdown waits only for the unary call still in flight, not its whole grace period.
    @Test func draining_endsSubscriptionsAtOnce_andLetsOtherCallsFinish() async throws {
        let probe = Probe()
        let server = try Self.makeServer(probe: probe)
        let client = RPCClient(host: "127.0.0.1", port: server.port)
        defer { client.close() }
        let subscription = try await client.serverStreaming(path: EchoService.path("Subscribe"), request: TestMessage(number: 0),
                                                            as: TestMessage.self)
        var messages = subscription.makeAsyncIterator()
        #expect(try await messages.next()?.number == 0)
        #expect(await probe.wait(for: "subscribed"))
        let inFlight = Task {
            try await client.unary(path: EchoService.path("Sleep"), request: TestMessage(number: 400), as: TestMessage.self)
        }
        while probe.count(of: "started") < 2 { try await Task.sleep(for: .milliseconds(5)) }
        let (_, duration) = await elapsed { await server.shutdown(gracePeriod: .seconds(10)) }
        let error = await rpcError { while try await messages.next() != nil {} }
        #expect(error?.code == .unavailable)
        #expect(error?.reason == "SERVER_DRAINING")
        #expect(try await inFlight.value.message.number == 400, "the unary call kept its grace period")
        #expect(duration < .seconds(3), "the shutdown took \(duration): it waited for the subscription")
        #expect(await probe.wait(for: "cancelled", timeout: .seconds(2)), "the subscription's handler was cancelled")
    }

    /// A call that asks to end on drain after the server began draining ends then.
    @Test func askingToEndOnDrain_whileTheServerDrains_endsTheCallThen() async throws {
        let probe = Probe()
        let server = try Self.makeServer(probe: probe)
        let client = RPCClient(host: "127.0.0.1", port: server.port)
        defer { client.close() }
        let subscription = try await client.serverStreaming(path: EchoService.path("Subscribe"), request: TestMessage(number: 300),
                                                            as: TestMessage.self)
        var messages = subscription.makeAsyncIterator()
        #expect(try await messages.next()?.number == 0)
        let (_, duration) = await elapsed { await server.shutdown(gracePeriod: .seconds(10)) }
        #expect(probe.count(of: "subscribed") == 1)
        let error = await rpcError { while try await messages.next() != nil {} }
        #expect(error?.code == .unavailable)
        #expect(error?.reason == "SERVER_DRAINING")
        #expect(duration < .seconds(3), "the shutdown took \(duration)")
    }

    @Test func newCallDuringGracePeriod_failsUnavailable_whileOldCallCompletes() async throws {
        let probe = Probe()
        let server = try Self.makeServer(probe: probe)
        let client = RPCClient(host: "127.0.0.1", port: server.port)
        defer { client.close() }
        let inFlight = Task {
            try await client.unary(path: EchoService.path("Sleep"), request: TestMessage(number: 700), as: TestMessage.self)
        }
        #expect(await probe.wait(for: "started"))
        let shutdown = Task { await server.shutdown(gracePeriod: .seconds(3)) }
        while server.health.status(of: "") != .notServing { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: .milliseconds(50))
        let (error, duration) = await elapsed { await rpcError { _ = try await Self.echo(client) } }
        #expect(error?.code == .unavailable)
        #expect(duration < .seconds(1))
        #expect(try await inFlight.value.message.number == 700)
        await shutdown.value
    }

    @Test func closedClient_failsUnavailable() async throws {
        try await withServer { _, client in
            let first = try await Self.echo(client)
            #expect(first == "hi")
            client.close()
            let error = await rpcError { _ = try await Self.echo(client) }
            #expect(error?.code == .unavailable)
        }
    }
}
