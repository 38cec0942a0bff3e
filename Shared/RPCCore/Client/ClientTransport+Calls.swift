package import Wire

extension ClientTransport {
    /// One request, one response.
    package func unary<Request: ProtoMessage, Response: ProtoMessage>(
        path: String, request: Request, as: Response.Type = Response.self, options: CallOptions = CallOptions()
    ) async throws -> ClientResponse<Response> {
        let stream = try await openStream(path: path, kind: .unary, options: options)
        return try await withTaskCancellationHandler {
            try await stream.send(request.serializedBytes(), end: true)
            return try await Self.singleResponse(of: stream, as: Response.self)
        } onCancel: {
            stream.cancel()
        }
    }

    /// One request, a stream of responses.
    package func serverStreaming<Request: ProtoMessage, Response: ProtoMessage>(
        path: String, request: Request, as: Response.Type = Response.self, options: CallOptions = CallOptions()
    ) async throws -> StreamingCall<Request, Response> {
        let stream = try await openStream(path: path, kind: .serverStreaming, options: options)
        try await stream.send(request.serializedBytes(), end: true)
        return StreamingCall(stream: stream)
    }

    /// A stream of requests, one response: `body` sends, then the response is awaited.
    package func clientStreaming<Request: ProtoMessage, Response: ProtoMessage>(
        path: String, as: Response.Type = Response.self, options: CallOptions = CallOptions(),
        _ body: (StreamingCall<Request, Response>) async throws -> Void
    ) async throws -> ClientResponse<Response> {
        let stream = try await openStream(path: path, kind: .clientStreaming, options: options)
        let streaming = StreamingCall<Request, Response>(stream: stream)
        return try await withTaskCancellationHandler {
            try await body(streaming)
            stream.finishSending()
            return try await Self.singleResponse(of: stream, as: Response.self)
        } onCancel: {
            stream.cancel()
        }
    }

    /// Streams both ways; the caller sends, half-closes and reads through the returned call.
    package func bidirectional<Request: ProtoMessage, Response: ProtoMessage>(
        path: String, as: Response.Type = Response.self, options: CallOptions = CallOptions()
    ) async throws -> StreamingCall<Request, Response> {
        StreamingCall(stream: try await openStream(path: path, kind: .bidirectional, options: options))
    }

    private static func singleResponse<Response: ProtoMessage>(of stream: any ClientStream,
                                                               as: Response.Type) async throws -> ClientResponse<Response> {
        var response: Response?
        while let payload = try await stream.next() {
            guard response == nil else {
                stream.cancel()
                throw RPCError(code: .internal, message: "more than one response message for a unary call")
            }
            response = try StreamingCall<Response, Response>.decode(payload, of: stream)
        }
        let status = await stream.status()
        guard status.code == .ok else { throw status }
        guard let response else { throw RPCError(code: .internal, message: "no response message") }
        return ClientResponse(message: response, initialMetadata: stream.initialMetadata,
                              trailingMetadata: status.trailers)
    }
}
