package import Wire

/// The request messages of a client-streaming or bidirectional call, in order.
package struct RequestStream<Message: ProtoMessage>: AsyncSequence, Sendable {
    package typealias Element = Message
    let call: ServerCall

    package struct AsyncIterator: AsyncIteratorProtocol {
        let call: ServerCall

        package mutating func next() async throws -> Message? {
            guard let inbound = try await call.inbox?.next() else { return nil }
            call.context.lastRequestCompressed = inbound.compressed
            return try call.decode(Message.self, from: inbound.payload)
        }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(call: call) }
}

/// Sends the response messages of a server-streaming or bidirectional call.
package struct ResponseWriter<Message: ProtoMessage>: Sendable {
    let call: ServerCall

    /// Sends one message; suspends while the client is slow to read this stream. `compressed`
    /// overrides the context's `compressResponses` for this message.
    package func write(_ message: Message, compressed: Bool? = nil) async throws {
        try call.sendMessage(message, compressed: compressed)
        await call.stream.waitUntilWritable()
        try call.checkOpen()
    }
}
