import Contracts
import RPC
import Testing
import TestSupport

extension HTTP2ServerTests {
    /// `RPCServer.shutdown(gracePeriod:)`: GOAWAY, drain, refuse, and a bounded wait.
    @Suite struct GracefulShutdownTests {
        static func slowStream(_ client: RPCClient, messages: Int, intervalMilliseconds: Int32) async throws
            -> StreamingCall<GRPCTesting.StreamingOutputCallRequest, GRPCTesting.StreamingOutputCallResponse> {
            var request = GRPCTesting.StreamingOutputCallRequest()
            request.responseParameters = Array(
                repeating: GRPCTesting.ResponseParameters(size: 10, intervalUs: intervalMilliseconds * 1000), count: messages)
            return try await client.serverStreaming(path: GRPC.streamingOutputCall, request: request,
                                                    as: GRPCTesting.StreamingOutputCallResponse.self)
        }

        @Test func inFlightCall_completes_whileNewConnectionsAreRefused() async throws {
            let server = try TestServer()
            let idlePeer = try RawHTTP2Peer(port: server.port)
            try idlePeer.sendPreface()
            try idlePeer.acknowledgeServerSettings()
            let client = RPCClient(host: "127.0.0.1", port: server.port)
            defer { client.close() }
            let call = try await Self.slowStream(client, messages: 5, intervalMilliseconds: 200)
            var iterator = call.makeAsyncIterator()
            _ = try await iterator.next()

            let start = ContinuousClock.now
            let shutdown = Task { await server.server.shutdown(gracePeriod: .seconds(5)) }
            var seen: [RawHTTP2Frame] = []
            let goaway = idlePeer.readUntil(timeout: .seconds(2), seen: &seen) { $0.type == RawHTTP2Frame.Kind.goaway }
            guard case .frame(let frame) = goaway else {
                Issue.record("no GOAWAY on an idle connection during shutdown: \(goaway)")
                return
            }
            #expect(frame.errorCode == 0)
            #expect(idlePeer.readUntilClosed(timeout: .seconds(2)) != nil, "an idle connection outlived the GOAWAY")
            // Refused at connect, or (when it raced into a listener's queue as it closed) closed
            // at once after the connection preface and a GOAWAY, never serving a stream.
            if let late = try? RawHTTP2Peer(port: server.port) {
                try? late.sendPreface()
                try? late.sendHeaders(streamID: 1, GRPC.requestHeaders(path: GRPC.unaryCall))
                try? late.sendData(streamID: 1, GRPC.unaryRequest(), endStream: true)
                let frames = late.readUntilClosed(timeout: .seconds(2))
                #expect(frames != nil, "a connection made during shutdown stayed open")
                // Every loop stops accepting before any GOAWAY goes out, so nothing is served here.
                #expect(!(frames ?? []).contains { $0.streamID == 1 && $0.type == RawHTTP2Frame.Kind.headers },
                        "a stream opened during shutdown was served: \(frames ?? [])")
            }

            var remaining = 0
            while try await iterator.next() != nil { remaining += 1 }
            #expect(remaining == 4)
            #expect(await call.status().code == .ok)
            await shutdown.value
            let elapsed = ContinuousClock.now - start
            #expect(elapsed < .seconds(3))
            Measure.log("graceful shutdown with a 1 s call in flight: returned after \(Measure.milliseconds(elapsed)) ms")
            await server.stop()
        }

        @Test func callOutlivingTheGracePeriod_failsAndShutdownReturns() async throws {
            let server = try TestServer()
            let client = RPCClient(host: "127.0.0.1", port: server.port)
            defer { client.close() }
            let call = try await Self.slowStream(client, messages: 1, intervalMilliseconds: 10_000)
            try await Task.sleep(for: .milliseconds(100))
            let start = ContinuousClock.now
            await server.server.shutdown(gracePeriod: .seconds(1))
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= .milliseconds(900) && elapsed < .milliseconds(1_500))
            let status = await call.status()
            #expect(status.code != .ok, "a call cut off by shutdown reported OK")
            let handlersDone = await server.waitForHandlersToFinish(timeout: .seconds(1))
            #expect(handlersDone, "a handler outlived the shutdown")
            Measure.log("shutdown with a 10 s call and a 1 s grace: returned after \(Measure.milliseconds(elapsed)) ms; "
                        + "the client saw \(status.code) (\(status.message))")
            await server.stop()
        }
    }
}
