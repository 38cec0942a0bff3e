import Contracts
import RPC
import Testing

extension HTTP2ServerTests {
    /// Messages far larger than any window or frame, end to end through RPCClient.
    @Suite struct LargeMessageTests {
        @Test func eightMiBRequestAndResponse_roundTripByteExact() async throws {
            let server = try TestServer { $0.maxReceiveMessageSize = 16 << 20 }
            let client = RPCClient(host: "127.0.0.1", port: server.port, maxReceiveMessageSize: 16 << 20)
            defer { client.close() }
            var generator = SystemRandomNumberGenerator()
            let body = (0..<(8 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var request = GRPCTesting.SimpleRequest()
            request.payload = GRPCTesting.Payload(body: body)
            let start = ContinuousClock.now
            let echoed = try await client.unary(path: GRPC.echo, request: request, as: GRPCTesting.SimpleResponse.self,
                                                options: CallOptions(timeout: .seconds(10)))
            #expect(echoed.message.payload?.body == body)

            request.responseSize = 8 << 20
            let sized = try await client.unary(path: GRPC.unaryCall, request: request, as: GRPCTesting.SimpleResponse.self,
                                               options: CallOptions(timeout: .seconds(10)))
            #expect(sized.message.payload?.body.count == 8 << 20)
            #expect(sized.message.payload?.body.allSatisfy { $0 == 0 } ?? false)
            Measure.log("8 MiB echo + 8 MiB request/response: \(Measure.milliseconds(ContinuousClock.now - start)) ms")
            await server.stop()
        }

        @Test func requestOverTheLimit_failsWithResourceExhausted() async throws {
            let server = try TestServer { $0.maxReceiveMessageSize = 1 << 20 }
            let client = RPCClient(host: "127.0.0.1", port: server.port)
            defer { client.close() }
            var request = GRPCTesting.SimpleRequest()
            request.payload = GRPCTesting.Payload(body: [UInt8](repeating: 7, count: 2 << 20))
            await #expect(throws: RPCError.self) {
                _ = try await client.unary(path: GRPC.echo, request: request, as: GRPCTesting.SimpleResponse.self,
                                           options: CallOptions(timeout: .seconds(5)))
            }
            await server.expectServesOthers()
            await server.stop()
        }

        @Test func thirtyTwoOneMiBMessages_arriveComplete() async throws {
            let server = try TestServer()
            let client = RPCClient(host: "127.0.0.1", port: server.port)
            defer { client.close() }
            var request = GRPCTesting.StreamingOutputCallRequest()
            request.responseParameters = Array(repeating: GRPCTesting.ResponseParameters(size: 1 << 20), count: 32)
            let call = try await client.serverStreaming(path: GRPC.streamingOutputCall, request: request,
                                                        as: GRPCTesting.StreamingOutputCallResponse.self,
                                                        options: CallOptions(timeout: .seconds(10)))
            var sizes: [Int] = []
            for try await message in call { sizes.append(message.payload?.body.count ?? -1) }
            #expect(sizes == Array(repeating: 1 << 20, count: 32))
            #expect(await call.status().code == .ok)
            await server.stop()
        }
    }
}
