package import Contracts
package import RPC

/// `grpc.testing.TestService` as the public gRPC interop test descriptions define it.
/// UnimplementedCall answers UNIMPLEMENTED, as the contract requires.
package struct TestService: TestServiceProvider {
    package typealias Messages = GRPCTesting

    package init() {}

    package func emptyCall(_ request: Messages.Empty, context: ServerCallContext) async throws -> Messages.Empty {
        Self.echoMetadata(context)
        return Messages.Empty()
    }

    package func unaryCall(_ request: Messages.SimpleRequest, context: ServerCallContext) async throws
        -> Messages.SimpleResponse {
        try Self.unaryCall(request, context)
    }

    package func cacheableUnaryCall(_ request: Messages.SimpleRequest, context: ServerCallContext) async throws
        -> Messages.SimpleResponse {
        try Self.unaryCall(request, context)
    }

    package func streamingOutputCall(_ request: Messages.StreamingOutputCallRequest,
                                     writer: ResponseWriter<Messages.StreamingOutputCallResponse>,
                                     context: ServerCallContext) async throws {
        Self.echoMetadata(context)
        try await Self.respond(to: request, with: writer)
    }

    package func streamingInputCall(_ requests: RequestStream<Messages.StreamingInputCallRequest>,
                                    context: ServerCallContext) async throws -> Messages.StreamingInputCallResponse {
        Self.echoMetadata(context)
        var total: Int32 = 0
        for try await request in requests {
            try Self.checkCompression(expected: request.expectCompressed, context: context)
            total &+= Int32(clamping: request.payload?.body.count ?? 0)
        }
        return Messages.StreamingInputCallResponse(aggregatedPayloadSize: total)
    }

    package func fullDuplexCall(_ requests: RequestStream<Messages.StreamingOutputCallRequest>,
                                writer: ResponseWriter<Messages.StreamingOutputCallResponse>,
                                context: ServerCallContext) async throws {
        Self.echoMetadata(context)
        for try await request in requests {
            try await Self.respond(to: request, with: writer)
        }
    }

    package func halfDuplexCall(_ requests: RequestStream<Messages.StreamingOutputCallRequest>,
                                writer: ResponseWriter<Messages.StreamingOutputCallResponse>,
                                context: ServerCallContext) async throws {
        Self.echoMetadata(context)
        var buffered: [Messages.StreamingOutputCallRequest] = []
        for try await request in requests { buffered.append(request) }
        for request in buffered { try await Self.respond(to: request, with: writer) }
    }

    /// The interop contract wants this method unimplemented: it answers exactly what the router
    /// answers for a path nobody registered.
    package func unimplementedCall(_ request: Messages.Empty, context: ServerCallContext) async throws -> Messages.Empty {
        throw RPCError(code: .unimplemented, message: "method /grpc.testing.TestService/UnimplementedCall is not implemented",
                       reason: "UNIMPLEMENTED")
    }

    static func unaryCall(_ request: Messages.SimpleRequest, _ context: ServerCallContext) throws -> Messages.SimpleResponse {
        echoMetadata(context)
        try checkCompression(expected: request.expectCompressed, context: context)
        try echoStatus(request.responseStatus)
        guard request.responseSize >= 0 else {
            throw RPCError(code: .invalidArgument, message: "response_size must not be negative", reason: "INVALID_ARGUMENT")
        }
        try checkPayloadSize(Int(request.responseSize))
        context.compressResponses = request.responseCompressed?.value ?? false
        var response = Messages.SimpleResponse()
        response.payload = Messages.Payload(body: [UInt8](repeating: 0, count: Int(request.responseSize)))
        return response
    }

    /// Answers one StreamingOutputCallRequest: a response per parameter, after its interval.
    static func respond(to request: Messages.StreamingOutputCallRequest,
                        with writer: ResponseWriter<Messages.StreamingOutputCallResponse>) async throws {
        try echoStatus(request.responseStatus)
        for parameters in request.responseParameters {
            guard parameters.size >= 0, parameters.intervalUs >= 0 else {
                throw RPCError(code: .invalidArgument, message: "size and interval_us must not be negative", reason: "INVALID_ARGUMENT")
            }
            try checkPayloadSize(Int(parameters.size))
            if parameters.intervalUs > 0 {
                try await Task.sleep(for: .microseconds(Int(parameters.intervalUs)))
            }
            let payload = Messages.Payload(body: [UInt8](repeating: 0, count: Int(parameters.size)))
            try await writer.write(Messages.StreamingOutputCallResponse(payload: payload),
                                   compressed: parameters.compressed?.value ?? false)
        }
    }

    /// A payload larger than the server ever sends is refused before it is made: the answer
    /// would be RESOURCE_EXHAUSTED MESSAGE_TOO_LARGE anyway, and making it first (up to 2 GiB
    /// for response_size 2^31-1) held the server's memory and a core for seconds (the contract
    /// sweep saw other calls wait behind it).
    static func checkPayloadSize(_ size: Int) throws {
        guard size <= maximumPayloadSize else {
            throw RPCError(code: .resourceExhausted, message: "response message too large", reason: "MESSAGE_TOO_LARGE")
        }
    }

    /// The server's largest response message (RPCServerConfiguration.maxSendMessageSize).
    static let maximumPayloadSize = RPCServerConfiguration().maxSendMessageSize

    /// Echo Metadata: the initial value back in the response headers, the trailing one in trailers.
    static func echoMetadata(_ context: ServerCallContext) {
        if let initial = context.requestMetadata[string: "x-grpc-test-echo-initial"] {
            var metadata = context.initialMetadata
            metadata.addString(initial, forKey: "x-grpc-test-echo-initial")
            context.initialMetadata = metadata
        }
        if let trailing = context.requestMetadata[binary: "x-grpc-test-echo-trailing-bin"] {
            var metadata = context.trailingMetadata
            metadata.addBinary(trailing, forKey: "x-grpc-test-echo-trailing-bin")
            context.trailingMetadata = metadata
        }
    }

    /// Echo Status: a non-zero code ends the call with that code and message.
    static func echoStatus(_ status: Messages.EchoStatus?) throws {
        guard let status, status.code != 0 else { return }
        throw RPCError(code: StatusCode(rawValue: Int(status.code)), message: status.message)
    }

    static func checkCompression(expected: Messages.BoolValue?, context: ServerCallContext) throws {
        if expected?.value == true && !context.lastRequestCompressed {
            throw RPCError(code: .invalidArgument, message: "expected a compressed request", reason: "INVALID_ARGUMENT")
        }
    }
}
