import HTTP2
@testable import RPC
import Testing
import Wire

/// gzip message compression over a live socket.
@Suite struct CompressionLiveTests {
    @Test func compressedRequest_isSeenCompressed_andDecodedByServer() async throws {
        try await withServer { _, client in
            let inspected = try await client.unary(path: EchoService.path("Inspect"), request: TestMessage(text: "x"),
                                                   as: TestMessage.self, options: CallOptions(compressRequests: true))
            #expect(inspected.message.number == 1)
            let plain = try await client.unary(path: EchoService.path("Inspect"), request: TestMessage(text: "x"), as: TestMessage.self)
            #expect(plain.message.number == 0)
            let request = TestMessage(text: "big", payload: [UInt8](repeating: 0x61, count: 300_000))
            let echoed = try await client.unary(path: EchoService.path("Echo"), request: request,
                                                as: TestMessage.self, options: CallOptions(compressRequests: true))
            #expect(echoed.message == request)
        }
    }

    @Test func compressedClientStream_everyMessageArrivesCompressed() async throws {
        try await withServer { _, client in
            let response = try await client.clientStreaming(path: EchoService.path("Sum"), as: TestMessage.self,
                                                            options: CallOptions(compressRequests: true)) {
                (call: StreamingCall<TestMessage, TestMessage>) in
                for number in 1...10 { try await call.send(TestMessage(number: Int64(number))) }
            }
            #expect(response.message.number == 55)
            #expect(response.message.payload == [1])
        }
    }

    @Test func compressResponses_sendsCompressedMessages_thatTheClientInflates() async throws {
        try await withServer { _, client in
            let call = try await client.makeCall(path: EchoService.path("Inspect"), options: CallOptions())
            try call.send(TestMessage(text: "gzip", number: 100_000), end: true)
            let inbound = try #require(try await call.inbox.next())
            #expect(inbound.compressed)
            #expect(inbound.wireBytes < 10_000, "100 kB of zeros compresses well")
            let message = try TestMessage(serializedBytes: inbound.payload)
            #expect(message.payload == [UInt8](repeating: 0, count: 100_000))
            #expect(try await call.inbox.next() == nil)
            #expect(await call.status().code == .ok)
        }
    }

    @Test func compressedServerStream_roundTripsThroughPublicAPI() async throws {
        try await withServer { _, client in
            let payload = [UInt8](repeating: 0x42, count: 50_000)
            let call = try await client.serverStreaming(path: EchoService.path("Expand"),
                                                        request: TestMessage(text: "gzip", number: 10, payload: payload),
                                                        as: TestMessage.self)
            var count = 0
            for try await message in call {
                #expect(message.payload == payload)
                count += 1
            }
            #expect(count == 10)
        }
    }

    @Test func compressResponses_withoutClientGzip_sendsUncompressed() async throws {
        try await withServer { server, _ in
            let head = RawStream.grpcHead(path: EchoService.path("Inspect"), port: server.port)
            let raw = try await RawStream.open(port: server.port, headers: head,
                                               body: GRPCFrame.encode(TestMessage(text: "gzip", number: 1_000).serializedBytes(), compressed: false))
            defer { raw.close() }
            let received = try #require(await raw.waitUntilClosed())
            #expect(received.trailer("grpc-status") == "0")
            #expect(received.head("grpc-encoding") == nil)
            #expect(received.data.first == 0, "compressed flag off")
        }
    }

    @Test func unsupportedEncoding_isUnimplemented_andAdvertisesGzip() async throws {
        try await withServer { server, _ in
            let head = RawStream.grpcHead(path: EchoService.path("Echo"), port: server.port,
                                          extra: [HTTP2Header("grpc-encoding", "br")])
            let raw = try await RawStream.open(port: server.port, headers: head,
                                               body: GRPCFrame.encode([0x0A, 0x01, 0x78], compressed: true))
            defer { raw.close() }
            let received = try #require(await raw.waitUntilClosed())
            #expect(received.trailer("grpc-status") == String(StatusCode.unimplemented.rawValue))
            #expect(received.trailer("grpc-accept-encoding")?.contains("gzip") == true)
        }
    }

    @Test func compressedFlagWithoutEncoding_isInternal() async throws {
        try await withServer { server, _ in
            let head = RawStream.grpcHead(path: EchoService.path("Echo"), port: server.port)
            let body = try Gzip.compress(TestMessage(text: "x").serializedBytes())
            let raw = try await RawStream.open(port: server.port, headers: head,
                                               body: GRPCFrame.encode(body, compressed: true))
            defer { raw.close() }
            let received = try #require(await raw.waitUntilClosed())
            #expect(received.trailer("grpc-status") == String(StatusCode.internal.rawValue))
        }
    }

    @Test func corruptGzipRequest_isInternal() async throws {
        try await withServer { server, _ in
            let head = RawStream.grpcHead(path: EchoService.path("Echo"), port: server.port,
                                          extra: [HTTP2Header("grpc-encoding", "gzip")])
            let raw = try await RawStream.open(port: server.port, headers: head,
                                               body: GRPCFrame.encode([0x1F, 0x8B, 0x08, 0x00, 0xDE, 0xAD], compressed: true))
            defer { raw.close() }
            let received = try #require(await raw.waitUntilClosed())
            #expect(received.trailer("grpc-status") == String(StatusCode.internal.rawValue))
        }
    }
}
