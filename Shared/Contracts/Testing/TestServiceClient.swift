package import RPC

/// Typed client stub of `grpc.testing.TestService`.
package struct TestServiceClient: Sendable {
    package typealias Messages = GRPCTesting
    package let client: RPCClient

    package init(client: RPCClient) { self.client = client }

    private static func path(_ method: String) -> String { "/\(Messages.serviceName)/\(method)" }

    package func emptyCall(_ request: Messages.Empty = Messages.Empty(), options: CallOptions = CallOptions()) async throws -> ClientResponse<Messages.Empty> {
        try await client.unary(path: Self.path("EmptyCall"), request: request, options: options)
    }

    package func unaryCall(_ request: Messages.SimpleRequest, options: CallOptions = CallOptions()) async throws -> ClientResponse<Messages.SimpleResponse> {
        try await client.unary(path: Self.path("UnaryCall"), request: request, options: options)
    }

    package func streamingOutputCall(_ request: Messages.StreamingOutputCallRequest, options: CallOptions = CallOptions()) async throws
        -> StreamingCall<Messages.StreamingOutputCallRequest, Messages.StreamingOutputCallResponse> {
        try await client.serverStreaming(path: Self.path("StreamingOutputCall"), request: request, options: options)
    }

    package func streamingInputCall(
        options: CallOptions = CallOptions(),
        _ body: (StreamingCall<Messages.StreamingInputCallRequest, Messages.StreamingInputCallResponse>) async throws -> Void
    ) async throws -> ClientResponse<Messages.StreamingInputCallResponse> {
        try await client.clientStreaming(path: Self.path("StreamingInputCall"), options: options, body)
    }

    package func fullDuplexCall(options: CallOptions = CallOptions()) async throws
        -> StreamingCall<Messages.StreamingOutputCallRequest, Messages.StreamingOutputCallResponse> {
        try await client.bidirectional(path: Self.path("FullDuplexCall"), options: options)
    }

    package func halfDuplexCall(options: CallOptions = CallOptions()) async throws
        -> StreamingCall<Messages.StreamingOutputCallRequest, Messages.StreamingOutputCallResponse> {
        try await client.bidirectional(path: Self.path("HalfDuplexCall"), options: options)
    }

    /// Calls the method the interop contract leaves unimplemented (expects UNIMPLEMENTED).
    package func unimplementedCall(options: CallOptions = CallOptions()) async throws -> ClientResponse<Messages.Empty> {
        try await client.unary(path: Self.path("UnimplementedCall"), request: Messages.Empty(), options: options)
    }
}
