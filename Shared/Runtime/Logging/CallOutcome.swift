import HTTP2
import IOLoop
package import RPC

/// The status a call ended with, as the server reports it: the same mapping `ServerCall` applies
/// to what a handler throws.
package enum CallOutcome {
    /// The status code for what the handler chain threw (nil: OK).
    package static func statusCode(for error: (any Error)?, context: ServerCallContext) -> StatusCode {
        guard let error else { return .ok }
        if let convertible = error as? any RPCErrorConvertible { return convertible.rpcError.code }
        if error is CancellationError {
            // The server cancels the handler when the deadline passes and answers DEADLINE_EXCEEDED.
            if let deadline = context.deadline, MonotonicClock.nanoseconds() >= deadline { return .deadlineExceeded }
            return .cancelled
        }
        return .internal
    }
}
