import RPC
import Testing

/// Receive and send limits on both ends.
@Suite struct MessageSizeTests {
    /// TestMessage with a payload of 1,021 bytes serializes to exactly 1,024 bytes.
    static let payloadAtLimit = 1_021

    @Test func requestAtServerLimit_isAccepted() async throws {
        try await withServer(configure: { $0.maxReceiveMessageSize = 1_024 }) { _, client in
            let request = TestMessage(payload: [UInt8](repeating: 7, count: Self.payloadAtLimit))
            #expect(request.serializedBytes().count == 1_024)
            let response = try await client.unary(path: EchoService.path("Echo"), request: request, as: TestMessage.self)
            #expect(response.message == request)
        }
    }

    @Test(arguments: [false, true])
    func requestOverServerLimit_isResourceExhausted(compressed: Bool) async throws {
        try await withServer(configure: { $0.maxReceiveMessageSize = 1_024 }) { _, client in
            let request = TestMessage(payload: [UInt8](repeating: 7, count: Self.payloadAtLimit + 1))
            let error = await rpcError {
                _ = try await client.unary(path: EchoService.path("Echo"), request: request, as: TestMessage.self,
                                           options: CallOptions(compressRequests: compressed))
            }
            #expect(error?.code == .resourceExhausted)
        }
    }

    @Test func hugeRequestOverServerLimit_isResourceExhausted_beforeItIsAllSent() async throws {
        try await withServer(configure: { $0.maxReceiveMessageSize = 64 << 10 }) { _, client in
            let request = TestMessage(payload: [UInt8](repeating: 1, count: 8 << 20))
            let error = await rpcError {
                _ = try await client.unary(path: EchoService.path("Echo"), request: request, as: TestMessage.self)
            }
            #expect(error?.code == .resourceExhausted)
            let echo = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(text: "ok"), as: TestMessage.self)
            #expect(echo.message.text == "ok")
        }
    }

    @Test func streamedRequestOverServerLimit_isResourceExhausted() async throws {
        try await withServer(configure: { $0.maxReceiveMessageSize = 1_024 }) { _, client in
            let error = await rpcError {
                _ = try await client.clientStreaming(path: EchoService.path("Sum"), as: TestMessage.self) {
                    (call: StreamingCall<TestMessage, TestMessage>) in
                    try await call.send(TestMessage(number: 1))
                    try await call.send(TestMessage(payload: [UInt8](repeating: 0, count: 4_096)))
                }
            }
            #expect(error?.code == .resourceExhausted)
        }
    }

    @Test(arguments: [false, true])
    func responseOverClientLimit_isResourceExhausted(compressed: Bool) async throws {
        try await withServer(clientMaxReceiveMessageSize: 1_024) { _, client in
            let error = await rpcError {
                _ = try await client.unary(path: EchoService.path("Inspect"),
                                           request: TestMessage(text: compressed ? "gzip" : "", number: 64 << 10),
                                           as: TestMessage.self)
            }
            #expect(error?.code == .resourceExhausted)
            let echo = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(text: "ok"), as: TestMessage.self)
            #expect(echo.message.text == "ok")
        }
    }

    @Test func responseOverServerSendLimit_isResourceExhausted() async throws {
        try await withServer(configure: { $0.maxSendMessageSize = 1_024 }) { _, client in
            let error = await rpcError {
                _ = try await client.unary(path: EchoService.path("Inspect"), request: TestMessage(number: 4_096), as: TestMessage.self)
            }
            #expect(error?.code == .resourceExhausted)
        }
    }

    @Test func streamedResponseOverServerSendLimit_isResourceExhausted() async throws {
        try await withServer(configure: { $0.maxSendMessageSize = 1_024 }) { _, client in
            let call = try await client.serverStreaming(path: EchoService.path("Expand"),
                                                        request: TestMessage(number: 3, payload: [UInt8](repeating: 1, count: 2_048)),
                                                        as: TestMessage.self)
            let error = await rpcError { for try await _ in call {} }
            #expect(error?.code == .resourceExhausted)
        }
    }
}
