#if canImport(Glibc)
import Glibc
#endif
import HTTP2
import RPC
import Testing
import Wire

/// Deadlines (client- and server-enforced) and cancellation reaching the handler.
@Suite struct DeadlineAndCancellationTests {
    @Test func clientTimeout_onSleepingHandler_isDeadlineExceeded_andHandlerIsCancelled() async throws {
        let probe = Probe()
        try await withServer(services: [EchoService(probe: probe)]) { _, client in
            // Connect first: under a full parallel test run, setting up the connection alone can
            // take a few hundred ms of the budget, which is not what this test measures.
            _ = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(), as: TestMessage.self)
            let (error, duration) = await elapsed {
                await rpcError {
                    _ = try await client.unary(path: EchoService.path("Sleep"), request: TestMessage(number: 5_000),
                                               as: TestMessage.self, options: CallOptions(timeout: .milliseconds(100)))
                }
            }
            #expect(error?.code == .deadlineExceeded)
            #expect(duration < .seconds(1))
            #expect(await probe.wait(for: "cancelled", timeout: .seconds(2)))
            #expect(probe.count(of: "finished") == 0)
        }
    }

    /// A peer that never lets the connection open (it does not accept, and its accept queue is
    /// full, so the kernel drops the connection attempts): the call fails DEADLINE_EXCEEDED at
    /// its deadline, not when the connect gives up minutes later.
    @Test func clientTimeout_whileConnecting_isDeadlineExceeded() async throws {
        let (listener, port) = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 0, reusePort: false)
        var fillers: [Int32] = []
        defer { for fd in fillers + [listener] { _ = Glibc.close(fd) } }
        for _ in 0..<4 { fillers.append(try Socket.connect(host: "127.0.0.1", port: port)) }
        try await Task.sleep(for: .milliseconds(100))
        let client = RPCClient(host: "127.0.0.1", port: port)
        defer { client.close() }
        let (error, duration) = await elapsed {
            await rpcError {
                _ = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(), as: TestMessage.self,
                                           options: CallOptions(timeout: .milliseconds(300)))
            }
        }
        #expect(error?.code == .deadlineExceeded)
        #expect(duration < .seconds(2))
    }

    @Test func grpcTimeout_withoutClientEnforcement_isEnforcedByServer() async throws {
        let probe = Probe()
        try await withServer(services: [EchoService(probe: probe)]) { server, _ in
            let head = RawStream.grpcHead(path: EchoService.path("Sleep"), port: server.port,
                                          extra: [HTTP2Header("grpc-timeout", "50m")])
            let raw = try await RawStream.open(port: server.port, headers: head,
                                               body: GRPCFrame.encode(TestMessage(number: 5_000).serializedBytes(), compressed: false))
            defer { raw.close() }
            let (received, duration) = await elapsed { await raw.waitUntilClosed() }
            let trailers = try #require(received)
            #expect(trailers.head(":status") == "200")
            #expect(trailers.trailer("grpc-status") == String(StatusCode.deadlineExceeded.rawValue))
            #expect(duration < .seconds(1))
            #expect(await probe.wait(for: "cancelled", timeout: .seconds(2)))
        }
    }

    @Test(arguments: ["", "5", "123456789m", "10x", "-1S", "1.5S"])
    func malformedGRPCTimeout_isInvalidArgument(value: String) async throws {
        try await withServer { server, _ in
            let head = RawStream.grpcHead(path: EchoService.path("Echo"), port: server.port,
                                          extra: [HTTP2Header("grpc-timeout", value)])
            let raw = try await RawStream.open(port: server.port, headers: head,
                                               body: GRPCFrame.encode([], compressed: false))
            defer { raw.close() }
            let received = try #require(await raw.waitUntilClosed())
            #expect(received.trailer("grpc-status") == String(StatusCode.invalidArgument.rawValue))
        }
    }

    @Test func generousTimeout_onQuickCall_succeeds() async throws {
        try await withServer { _, client in
            let response = try await client.unary(path: EchoService.path("Sleep"), request: TestMessage(number: 20),
                                                  as: TestMessage.self, options: CallOptions(timeout: .seconds(10)))
            #expect(response.message.number == 20)
        }
    }

    @Test func clientTimeout_onServerStream_endsWithDeadlineExceeded_afterSomeMessages() async throws {
        let probe = Probe()
        try await withServer(services: [EchoService(probe: probe)]) { _, client in
            let call = try await client.serverStreaming(path: EchoService.path("Ticks"), request: TestMessage(),
                                                        as: TestMessage.self, options: CallOptions(timeout: .milliseconds(200)))
            var count = 0
            let error = await rpcError { for try await _ in call { count += 1 } }
            #expect(count > 0)
            #expect(error?.code == .deadlineExceeded)
            #expect(await probe.wait(for: "cancelled", timeout: .seconds(2)))
        }
    }

    @Test func cancellingBidirectionalCall_cancelsHandler_andConnectionKeepsWorking() async throws {
        let probe = Probe()
        try await withServer(services: [EchoService(probe: probe)]) { _, client in
            let before = try await client.unary(path: EchoService.path("Inspect"), request: TestMessage(), as: TestMessage.self)
            let call = try await client.bidirectional(path: EchoService.path("Hang"),
                                                      as: TestMessage.self) as StreamingCall<TestMessage, TestMessage>
            try await call.send(TestMessage(text: "hello"))
            var responses = call.makeAsyncIterator()
            #expect(try await responses.next()?.text == "ready")
            call.cancel()
            #expect(await call.status().code == .cancelled)
            #expect(await probe.wait(for: "cancelled", timeout: .seconds(2)))
            let after = try await client.unary(path: EchoService.path("Inspect"), request: TestMessage(), as: TestMessage.self)
            #expect(after.message.text == before.message.text, "same connection (same client port)")
        }
    }

    @Test func breakingOutOfServerStream_thenCancelling_cancelsHandler() async throws {
        let probe = Probe()
        try await withServer(services: [EchoService(probe: probe)]) { _, client in
            let call = try await client.serverStreaming(path: EchoService.path("Ticks"), request: TestMessage(), as: TestMessage.self)
            var seen: [Int64] = []
            for try await message in call {
                seen.append(message.number)
                if seen.count == 3 { break }
            }
            call.cancel()
            #expect(seen == [0, 1, 2])
            #expect(await probe.wait(for: "cancelled", timeout: .seconds(2)))
            let echo = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(text: "still here"), as: TestMessage.self)
            #expect(echo.message.text == "still here")
        }
    }

    @Test func cancellingTheCallersTask_cancelsUnaryCall_andHandler() async throws {
        let probe = Probe()
        try await withServer(services: [EchoService(probe: probe)]) { _, client in
            let task = Task {
                try await client.unary(path: EchoService.path("Sleep"), request: TestMessage(number: 5_000), as: TestMessage.self)
            }
            #expect(await probe.wait(for: "started"))
            task.cancel()
            let error = await rpcError { _ = try await task.value }
            #expect(error?.code == .cancelled)
            #expect(await probe.wait(for: "cancelled", timeout: .seconds(2)))
        }
    }

    @Test func manyCancelledStreams_leaveTheConnectionUsable() async throws {
        let probe = Probe()
        try await withServer(services: [EchoService(probe: probe)]) { _, client in
            let before = try await client.unary(path: EchoService.path("Inspect"), request: TestMessage(), as: TestMessage.self)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        let call = try await client.bidirectional(path: EchoService.path("Hang"),
                                                                  as: TestMessage.self) as StreamingCall<TestMessage, TestMessage>
                        try await call.send(TestMessage(number: Int64(index)))
                        if index % 2 == 0 {
                            var responses = call.makeAsyncIterator()
                            _ = try await responses.next()
                        }
                        call.cancel()
                        _ = await call.status()
                    }
                }
                try await group.waitForAll()
            }
            let after = try await client.unary(path: EchoService.path("Inspect"), request: TestMessage(), as: TestMessage.self)
            #expect(after.message.text == before.message.text)
            #expect(await probe.wait(for: "cancelled", times: probe.count(of: "started"), timeout: .seconds(3)))
        }
    }
}

extension DeadlineAndCancellationTests {
    /// 99999999H is a legal grpc-timeout (about 11,000 years): the call must not expire at once.
    @Test(arguments: ["99999999H", "2562047H", "6000000H"])
    func hugeGRPCTimeout_doesNotExpireTheCall(value: String) async throws {
        try await withServer { server, _ in
            let head = RawStream.grpcHead(path: EchoService.path("Sleep"), port: server.port,
                                          extra: [HTTP2Header("grpc-timeout", value)])
            let raw = try await RawStream.open(port: server.port, headers: head,
                                               body: GRPCFrame.encode(TestMessage(number: 50).serializedBytes(), compressed: false))
            defer { raw.close() }
            let received = try #require(await raw.waitUntilClosed())
            #expect(received.trailer("grpc-status") == "0")
        }
    }

    @Test func hugeClientTimeout_isSentAndDoesNotExpireTheCall() async throws {
        try await withServer { _, client in
            let response = try await client.unary(path: EchoService.path("Sleep"), request: TestMessage(number: 20),
                                                  as: TestMessage.self, options: CallOptions(timeout: .seconds(Int64.max)))
            #expect(response.message.number == 20)
        }
    }
}
