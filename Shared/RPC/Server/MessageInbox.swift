import Synchronization

/// One received gRPC message, decompressed.
package struct InboundMessage: Sendable {
    package var payload: [UInt8]
    /// Whether the sender compressed it (the frame's flag).
    package var compressed: Bool
    /// Bytes it took on the wire, returned to flow control when the reader takes it.
    package var wireBytes: Int
}

/// A queue of received messages between an event loop (producer) and one task (consumer).
package final class MessageInbox: Sendable {
    private struct State {
        var messages: [InboundMessage] = []
        var head = 0
        var bufferedBytes = 0
        var end: RPCError?? = nil
        var waiter: CheckedContinuation<InboundMessage?, any Error>?
    }

    private let state = Mutex(State())
    /// Called with a message's wire size when the consumer takes it.
    private let onTaken: @Sendable (Int) -> Void

    package init(onTaken: @escaping @Sendable (Int) -> Void) {
        self.onTaken = onTaken
    }

    /// Bytes received and not yet taken.
    package var bufferedBytes: Int { state.withLock { $0.bufferedBytes } }

    package func append(_ message: InboundMessage) {
        let waiter = state.withLock { state -> CheckedContinuation<InboundMessage?, any Error>? in
            guard state.end == nil else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.messages.append(message)
            state.bufferedBytes += message.wireBytes
            return nil
        }
        if let waiter {
            waiter.resume(returning: message)
            onTaken(message.wireBytes)
        }
    }

    /// Ends the sequence: normally (nil) after the last message, or with an error. With
    /// `keepingReceived`, messages already received are still read before the error (the peer
    /// sent them before its error status); otherwise the error comes next (a cancelled call).
    package func finish(_ error: RPCError? = nil, keepingReceived: Bool = false) {
        let waiter = state.withLock { state -> CheckedContinuation<InboundMessage?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = .some(error)
            if error != nil && !keepingReceived {
                state.messages.removeAll()
                state.head = 0
                state.bufferedBytes = 0
            }
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        if let waiter {
            if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
        }
    }

    /// The next message, nil at a normal end; throws the error the inbox was finished with, or
    /// CANCELLED when the waiting task is cancelled.
    package func next() async throws -> InboundMessage? {
        if let ready = try takeReady() { return ready.message }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<InboundMessage?, any Error>) in
                let outcome = state.withLock { state -> Result<InboundMessage?, any Error>? in
                    if state.head < state.messages.count {
                        return .success(Self.pop(&state))
                    }
                    if let end = state.end {
                        if let error = end { return .failure(error) }
                        return .success(nil)
                    }
                    if Task.isCancelled { return .failure(RPCError(code: .cancelled, message: "cancelled")) }
                    state.waiter = continuation
                    return nil
                }
                if let outcome {
                    if case .success(let message?) = outcome { onTaken(message.wireBytes) }
                    continuation.resume(with: outcome)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<InboundMessage?, any Error>? in
                let waiter = state.waiter
                state.waiter = nil
                return waiter
            }
            waiter?.resume(throwing: RPCError(code: .cancelled, message: "cancelled"))
        }
    }

    /// A message already received, without waiting; nil when none is buffered (the end, if
    /// any, is left for `next`).
    package func nextIfReceived() -> InboundMessage? {
        let message = state.withLock { state -> InboundMessage? in
            state.head < state.messages.count ? Self.pop(&state) : nil
        }
        if let message { onTaken(message.wireBytes) }
        return message
    }

    private func takeReady() throws -> (message: InboundMessage?, ())? {
        let outcome = state.withLock { state -> Result<InboundMessage?, RPCError>? in
            if state.head < state.messages.count { return .success(Self.pop(&state)) }
            if let end = state.end {
                if let error = end { return .failure(error) }
                return .success(nil)
            }
            return nil
        }
        switch outcome {
        case nil: return nil
        case .success(let message)?:
            if let message { onTaken(message.wireBytes) }
            return (message, ())
        case .failure(let error)?: throw error
        }
    }

    private static func pop(_ state: inout State) -> InboundMessage {
        let message = state.messages[state.head]
        state.head += 1
        state.bufferedBytes -= message.wireBytes
        if state.head == state.messages.count {
            state.messages.removeAll(keepingCapacity: true)
            state.head = 0
        } else if state.head > 64 && state.head * 2 > state.messages.count {
            state.messages.removeFirst(state.head)
            state.head = 0
        }
        return message
    }
}
