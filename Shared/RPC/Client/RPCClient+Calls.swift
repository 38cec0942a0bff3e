package import Wire

extension RPCClient {
    /// One request, one response.
    package func unary<Request: ProtoMessage, Response: ProtoMessage>(
        path: String, request: Request, as: Response.Type = Response.self, options: CallOptions = CallOptions()
    ) async throws -> ClientResponse<Response> {
        let call = try await makeCall(path: path, options: options)
        return try await withTaskCancellationHandler {
            try call.send(request, end: true)
            return try await Self.singleResponse(of: call, as: Response.self)
        } onCancel: {
            call.cancel()
        }
    }

    /// One request, a stream of responses.
    package func serverStreaming<Request: ProtoMessage, Response: ProtoMessage>(
        path: String, request: Request, as: Response.Type = Response.self, options: CallOptions = CallOptions()
    ) async throws -> StreamingCall<Request, Response> {
        let call = try await makeCall(path: path, options: options)
        try call.send(request, end: true)
        return StreamingCall(call: call)
    }

    /// A stream of requests, one response: `body` sends, then the response is awaited.
    package func clientStreaming<Request: ProtoMessage, Response: ProtoMessage>(
        path: String, as: Response.Type = Response.self, options: CallOptions = CallOptions(),
        _ body: (StreamingCall<Request, Response>) async throws -> Void
    ) async throws -> ClientResponse<Response> {
        let call = try await makeCall(path: path, options: options)
        let streaming = StreamingCall<Request, Response>(call: call)
        return try await withTaskCancellationHandler {
            try await body(streaming)
            call.finishSending()
            return try await Self.singleResponse(of: call, as: Response.self)
        } onCancel: {
            call.cancel()
        }
    }

    /// Streams both ways; the caller sends, half-closes and reads through the returned call.
    package func bidirectional<Request: ProtoMessage, Response: ProtoMessage>(
        path: String, as: Response.Type = Response.self, options: CallOptions = CallOptions()
    ) async throws -> StreamingCall<Request, Response> {
        StreamingCall(call: try await makeCall(path: path, options: options))
    }

    private static func singleResponse<Response: ProtoMessage>(of call: ClientCall, as: Response.Type) async throws -> ClientResponse<Response> {
        var response: Response?
        while let inbound = try await call.inbox.next() {
            guard response == nil else {
                call.cancel()
                throw RPCError(code: .internal, message: "more than one response message for a unary call")
            }
            response = try StreamingCall<Response, Response>.decode(inbound.payload, of: call)
        }
        let status = await call.status()
        guard status.code == .ok else { throw status }
        guard let response else { throw RPCError(code: .internal, message: "no response message") }
        return ClientResponse(message: response, initialMetadata: call.initialMetadata,
                              trailingMetadata: status.trailers)
    }
}

/// A client call in progress: send requests, half-close, read responses, cancel.
package struct StreamingCall<Request: ProtoMessage, Response: ProtoMessage>: AsyncSequence, Sendable {
    package typealias Element = Response
    let call: ClientCall

    package func send(_ message: Request) async throws {
        try call.send(message)
        await call.stream.waitUntilWritable()
    }

    package func finishSending() { call.finishSending() }

    package func cancel() { call.cancel() }

    /// The final status (`.ok` on success), once the call ended.
    package func status() async -> RPCError { await call.status() }

    /// Response headers' metadata; complete once the first response arrived.
    package var initialMetadata: Metadata { call.initialMetadata }

    package struct AsyncIterator: AsyncIteratorProtocol {
        let call: ClientCall

        package mutating func next() async throws -> Response? {
            try await withTaskCancellationHandler {
                guard let inbound = try await call.inbox.next() else { return nil }
                return try StreamingCall.decode(inbound.payload, of: call)
            } onCancel: { [call] in
                call.cancel()
            }
        }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(call: call) }

    /// The next response and those already received after it, up to `limit` in all: a reader
    /// that can handle several at once (one transaction for a batch of events) takes what has
    /// arrived without waiting for more. Empty at the stream's normal end.
    package func nextBatch(limit: Int) async throws -> [Response] {
        var iterator = makeAsyncIterator()
        guard let first = try await iterator.next() else { return [] }
        var batch = [first]
        while batch.count < limit, let inbound = call.inbox.nextIfReceived() {
            batch.append(try StreamingCall.decode(inbound.payload, of: call))
        }
        return batch
    }

    /// Decodes a response within the call's size limit: the default `DecodingLimits` (4 MiB)
    /// would reject messages the client was configured to receive.
    static func decode(_ payload: [UInt8], of call: ClientCall) throws -> Response {
        do {
            return try Response(serializedBytes: payload, limits: DecodingLimits(maxMessageSize: call.maxReceiveMessageSize))
        } catch {
            throw RPCError(code: .internal, message: "the response message could not be decoded")
        }
    }
}
