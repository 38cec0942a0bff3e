package import Wire

/// A client call in progress: send requests, half-close, read responses, cancel.
package struct StreamingCall<Request: ProtoMessage, Response: ProtoMessage>: AsyncSequence, Sendable {
    package typealias Element = Response
    /// The transport's call underneath.
    package let stream: any ClientStream

    package init(stream: any ClientStream) { self.stream = stream }

    package func send(_ message: Request) async throws {
        try await stream.send(message.serializedBytes(), end: false)
    }

    package func finishSending() { stream.finishSending() }

    package func cancel() { stream.cancel() }

    /// The final status (`.ok` on success), once the call ended.
    package func status() async -> RPCError { await stream.status() }

    /// Response headers' metadata; complete once the first response arrived.
    package var initialMetadata: Metadata { stream.initialMetadata }

    package struct AsyncIterator: AsyncIteratorProtocol {
        let stream: any ClientStream

        package mutating func next() async throws -> Response? {
            try await withTaskCancellationHandler {
                guard let payload = try await stream.next() else { return nil }
                return try StreamingCall.decode(payload, of: stream)
            } onCancel: { [stream] in
                stream.cancel()
            }
        }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: stream) }

    /// The next response and those already received after it, up to `limit` in all: a reader
    /// that can handle several at once (one transaction for a batch of events) takes what has
    /// arrived without waiting for more. Empty at the stream's normal end.
    package func nextBatch(limit: Int) async throws -> [Response] {
        var iterator = makeAsyncIterator()
        guard let first = try await iterator.next() else { return [] }
        var batch = [first]
        while batch.count < limit, let payload = stream.nextIfReceived() {
            batch.append(try StreamingCall.decode(payload, of: stream))
        }
        return batch
    }

    /// Decodes a response within the call's size limit: the default `DecodingLimits` (4 MiB)
    /// would reject messages the client was configured to receive.
    static func decode(_ payload: [UInt8], of stream: any ClientStream) throws -> Response {
        do {
            return try Response(serializedBytes: payload, limits: DecodingLimits(maxMessageSize: stream.maxReceiveMessageSize))
        } catch {
            throw RPCError(code: .internal, message: "the response message could not be decoded")
        }
    }
}
