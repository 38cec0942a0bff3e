import Contracts
import Foundation
import RPC
import Testing
import TestSupport

/// Our RPCClient drives stock gRPC's server (Python grpcio, `Fixtures/interop_server.py`) through
/// the client cases of gRPC's interop test descriptions (doc/interop-test-descriptions.md).
@Suite(GrpcioInteropServer())
struct SwiftClientInteropTests {
    typealias Messages = GRPCTesting

    enum InteropCase: String, CaseIterable, Sendable {
        case emptyUnary = "empty_unary"
        case largeUnary = "large_unary"
        case clientStreaming = "client_streaming"
        case serverStreaming = "server_streaming"
        case pingPong = "ping_pong"
        case emptyStream = "empty_stream"
        case customMetadata = "custom_metadata"
        case statusCodeAndMessage = "status_code_and_message"
        case specialStatusMessage = "special_status_message"
        case unimplementedMethod = "unimplemented_method"
        case unimplementedService = "unimplemented_service"
        case timeoutOnSleepingServer = "timeout_on_sleeping_server"
        case cancelAfterBegin = "cancel_after_begin"
        case cancelAfterFirstResponse = "cancel_after_first_response"
    }

    @Test(arguments: InteropCase.allCases)
    func interopCase_againstGrpcioServer_passes(_ interopCase: InteropCase) async throws {
        let client = RPCClient(host: "127.0.0.1", port: GrpcioInteropServer.port)
        defer { client.close() }
        switch interopCase {
        case .emptyUnary: try await Self.emptyUnary(client)
        case .largeUnary: try await Self.largeUnary(client)
        case .clientStreaming: try await Self.clientStreaming(client)
        case .serverStreaming: try await Self.serverStreaming(client)
        case .pingPong: try await Self.pingPong(client)
        case .emptyStream: try await Self.emptyStream(client)
        case .customMetadata: try await Self.customMetadata(client)
        case .statusCodeAndMessage: try await Self.statusCodeAndMessage(client)
        case .specialStatusMessage: try await Self.specialStatusMessage(client)
        case .unimplementedMethod: try await Self.unimplementedMethod(client)
        case .unimplementedService: try await Self.unimplementedService(client)
        case .timeoutOnSleepingServer: try await Self.timeoutOnSleepingServer(client)
        case .cancelAfterBegin: try await Self.cancelAfterBegin(client)
        case .cancelAfterFirstResponse: try await Self.cancelAfterFirstResponse(client)
        }
    }

    // MARK: Cases

    static func emptyUnary(_ client: RPCClient) async throws {
        let response = try await client.unary(path: path("EmptyCall"), request: Messages.Empty(), as: Messages.Empty.self)
        #expect(response.message == Messages.Empty())
    }

    static func largeUnary(_ client: RPCClient) async throws {
        let response = try await client.unary(path: path("UnaryCall"), request: simpleRequest(), as: Messages.SimpleResponse.self)
        let payload = try #require(response.message.payload)
        #expect(payload.type == .compressable)
        #expect(payload.body == zeros(314_159))
    }

    static func clientStreaming(_ client: RPCClient) async throws {
        let response = try await client.clientStreaming(path: path("StreamingInputCall"),
                                                        as: Messages.StreamingInputCallResponse.self) {
            (call: StreamingCall<Messages.StreamingInputCallRequest, Messages.StreamingInputCallResponse>) in
            for size in [27_182, 8, 1_828, 45_904] {
                var request = Messages.StreamingInputCallRequest()
                request.payload = Messages.Payload(body: zeros(size))
                try await call.send(request)
            }
        }
        #expect(response.message.aggregatedPayloadSize == 74_922)
    }

    static func serverStreaming(_ client: RPCClient) async throws {
        let sizes: [Int32] = [31_415, 9, 2_653, 58_979]
        var request = Messages.StreamingOutputCallRequest()
        request.responseParameters = sizes.map { Messages.ResponseParameters(size: $0) }
        let call = try await client.serverStreaming(path: path("StreamingOutputCall"), request: request,
                                                    as: Messages.StreamingOutputCallResponse.self)
        var received: [Int] = []
        for try await response in call {
            let payload = try #require(response.payload)
            #expect(payload.body.allSatisfy { $0 == 0 })
            received.append(payload.body.count)
        }
        #expect(received == sizes.map(Int.init))
        #expect(await call.status().code == .ok)
    }

    static func pingPong(_ client: RPCClient) async throws {
        let call = try await fullDuplex(client)
        var responses = call.makeAsyncIterator()
        for (responseSize, payloadSize) in [(31_415, 27_182), (9, 8), (2_653, 1_828), (58_979, 45_904)] {
            try await call.send(streamingRequest(responseSize: responseSize, payloadSize: payloadSize))
            let response = try #require(try await responses.next())
            #expect(response.payload?.body == zeros(responseSize))
        }
        call.finishSending()
        #expect(try await responses.next() == nil)
        #expect(await call.status().code == .ok)
    }

    static func emptyStream(_ client: RPCClient) async throws {
        let call = try await fullDuplex(client)
        call.finishSending()
        var count = 0
        for try await _ in call { count += 1 }
        #expect(count == 0)
        #expect(await call.status().code == .ok)
    }

    static let echoInitialKey = "x-grpc-test-echo-initial"
    static let echoTrailingKey = "x-grpc-test-echo-trailing-bin"

    static func customMetadata(_ client: RPCClient) async throws {
        var metadata = Metadata()
        metadata.addString("test_initial_metadata_value", forKey: echoInitialKey)
        metadata.addBinary([0xAB, 0xAB, 0xAB], forKey: echoTrailingKey)
        let options = CallOptions(metadata: metadata)

        let unary = try await client.unary(path: path("UnaryCall"), request: simpleRequest(),
                                           as: Messages.SimpleResponse.self, options: options)
        #expect(unary.message.payload?.body.count == 314_159)
        #expect(unary.initialMetadata[string: echoInitialKey] == "test_initial_metadata_value")
        #expect(unary.trailingMetadata[binary: echoTrailingKey] == [0xAB, 0xAB, 0xAB])

        // grpcio holds FullDuplexCall's response headers until the first request arrives.
        let call = try await fullDuplex(client, options: options)
        try await call.send(streamingRequest(responseSize: 314_159, payloadSize: 271_828))
        call.finishSending()
        var sizes: [Int] = []
        for try await response in call { sizes.append(response.payload?.body.count ?? 0) }
        let status = await call.status()
        #expect(sizes == [314_159])
        #expect(status.code == .ok)
        #expect(call.initialMetadata[string: echoInitialKey] == "test_initial_metadata_value")
        #expect(status.trailers[binary: echoTrailingKey] == [0xAB, 0xAB, 0xAB])
    }

    static func statusCodeAndMessage(_ client: RPCClient) async throws {
        let echo = Messages.EchoStatus(code: 2, message: "test status message")
        try await expectEchoedStatus(client, echo)
    }

    static func specialStatusMessage(_ client: RPCClient) async throws {
        let message = "\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n"
        var request = Messages.SimpleRequest()
        request.responseStatus = Messages.EchoStatus(code: 2, message: message)
        let error = await rpcError {
            _ = try await client.unary(path: path("UnaryCall"), request: request, as: Messages.SimpleResponse.self)
        }
        #expect(error?.code == .unknown)
        #expect(error?.message == message)
    }

    static func unimplementedMethod(_ client: RPCClient) async throws {
        let error = await rpcError {
            _ = try await client.unary(path: path("UnimplementedCall"), request: Messages.Empty(), as: Messages.Empty.self)
        }
        #expect(error?.code == .unimplemented)
    }

    static func unimplementedService(_ client: RPCClient) async throws {
        let error = await rpcError {
            _ = try await client.unary(path: "/grpc.testing.UnimplementedService/UnimplementedCall",
                                       request: Messages.Empty(), as: Messages.Empty.self)
        }
        #expect(error?.code == .unimplemented)
    }

    static func timeoutOnSleepingServer(_ client: RPCClient) async throws {
        let call = try await fullDuplex(client, options: CallOptions(timeout: .milliseconds(5)))
        var request = Messages.StreamingOutputCallRequest()
        request.payload = Messages.Payload(body: zeros(27_182))
        // The deadline may pass before the send; only the final status matters.
        try? await call.send(request)
        let error = await rpcError { for try await _ in call {} }
        #expect(error?.code == .deadlineExceeded)
        #expect(await call.status().code == .deadlineExceeded)
    }

    static func cancelAfterBegin(_ client: RPCClient) async throws {
        let error = await rpcError {
            _ = try await client.clientStreaming(path: path("StreamingInputCall"), as: Messages.StreamingInputCallResponse.self) {
                (call: StreamingCall<Messages.StreamingInputCallRequest, Messages.StreamingInputCallResponse>) in
                call.cancel()
            }
        }
        #expect(error?.code == .cancelled)
        try await emptyUnary(client)
    }

    static func cancelAfterFirstResponse(_ client: RPCClient) async throws {
        let call = try await fullDuplex(client)
        var responses = call.makeAsyncIterator()
        try await call.send(streamingRequest(responseSize: 31_415, payloadSize: 27_182))
        let first = try #require(try await responses.next())
        #expect(first.payload?.body.count == 31_415)
        call.cancel()
        #expect(await call.status().code == .cancelled)
        let error = await rpcError { _ = try await responses.next() }
        #expect(error?.code == .cancelled)
        try await emptyUnary(client)
    }

    // MARK: Helpers

    static func path(_ method: String) -> String { "/\(TestServiceClient.serviceName)/\(method)" }

    static func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }

    /// large_unary's request: 314159 bytes wanted back, 271828 sent.
    static func simpleRequest() -> Messages.SimpleRequest {
        var request = Messages.SimpleRequest()
        request.responseSize = 314_159
        request.payload = Messages.Payload(body: zeros(271_828))
        return request
    }

    static func streamingRequest(responseSize: Int, payloadSize: Int) -> Messages.StreamingOutputCallRequest {
        var request = Messages.StreamingOutputCallRequest()
        request.responseParameters = [Messages.ResponseParameters(size: Int32(responseSize))]
        request.payload = Messages.Payload(body: zeros(payloadSize))
        return request
    }

    static func fullDuplex(_ client: RPCClient, options: CallOptions = CallOptions()) async throws
        -> StreamingCall<Messages.StreamingOutputCallRequest, Messages.StreamingOutputCallResponse> {
        try await client.bidirectional(path: path("FullDuplexCall"), as: Messages.StreamingOutputCallResponse.self, options: options)
    }

    /// status_code_and_message: the echoed status ends both UnaryCall and FullDuplexCall.
    static func expectEchoedStatus(_ client: RPCClient, _ echo: Messages.EchoStatus) async throws {
        var request = Messages.SimpleRequest()
        request.responseStatus = echo
        let unaryError = await rpcError {
            _ = try await client.unary(path: path("UnaryCall"), request: request, as: Messages.SimpleResponse.self)
        }
        #expect(unaryError?.code.rawValue == Int(echo.code))
        #expect(unaryError?.message == echo.message)

        let call = try await fullDuplex(client)
        var streaming = Messages.StreamingOutputCallRequest()
        streaming.responseStatus = echo
        try await call.send(streaming)
        call.finishSending()
        let streamError = await rpcError { for try await _ in call {} }
        #expect(streamError?.code.rawValue == Int(echo.code))
        #expect(streamError?.message == echo.message)
    }

    /// The RPCError `body` threw; nil when it threw nothing.
    static func rpcError(_ body: () async throws -> Void) async -> RPCError? {
        do {
            try await body()
            return nil
        } catch let error as RPCError {
            return error
        } catch {
            return RPCError(code: StatusCode(rawValue: -1), message: "not an RPCError: \(error)")
        }
    }
}

/// Starts one grpcio interop server (`interop_server.py --port 0`) for the whole suite.
struct GrpcioInteropServer: SuiteTrait, TestScoping {
    @TaskLocal static var port = 0

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let script = RepositoryPaths.interopFixtures.appendingPathComponent("interop_server.py").path
        let server = try Subprocess.Server("/usr/bin/env", ["python3", script, "--port", "0"])
        defer { server.stop() }
        try await Self.$port.withValue(server.port) { try await function() }
    }
}
