package import Logging
package import RPC

/// Logs every call once, when it ends: method, status code, duration, peer and request id.
///
/// Never logs messages or metadata values other than the request id, so bodies and
/// `authorization` never reach the log. Also echoes the request id to the client as
/// `x-request-id` in the response headers and stores it for handlers (`context.requestID`).
/// Put it first in the chain so it sees the final status of every other interceptor.
package struct LoggingInterceptor: ServerInterceptor {
    private let logger: Logger

    /// Logs to `logger`.
    package init(logger: Logger) {
        self.logger = logger
    }

    /// Assigns the request id, runs the rest of the chain, logs its outcome.
    package func intercept(_ context: ServerCallContext, next: () async throws -> Void) async throws {
        let requestID = RequestID.resolve(context.requestMetadata)
        context[value: RequestID.contextKey] = requestID
        var initial = context.initialMetadata
        initial.removeAll(forKey: RequestID.metadataKey)
        initial.addString(requestID, forKey: RequestID.metadataKey)
        context.initialMetadata = initial

        let clock = ContinuousClock()
        let start = clock.now
        var failure: (any Error)?
        do {
            try await next()
        } catch {
            failure = error
        }
        let elapsed = clock.now - start
        let code = CallOutcome.statusCode(for: failure, context: context)
        let level = Self.level(for: code)
        // Skip building the line when it would be dropped (this runs on every call).
        guard logger.logLevel <= level else {
            if let failure { throw failure }
            return
        }
        var metadata: Logger.Metadata = [
            "rpc.method": .string(context.path),
            "rpc.code": .string(code.description),
            "rpc.duration_ms": .stringConvertible(Self.milliseconds(elapsed)),
            "peer": .string(context.peer),
            "request_id": .string(requestID),
        ]
        if let failure {
            if let rpc = (failure as? any RPCErrorConvertible)?.rpcError {
                if let reason = rpc.reason { metadata["rpc.reason"] = .string(reason) }
            } else if !(failure is CancellationError) {
                metadata["error"] = .string(String(describing: failure))
            }
        }
        logger.log(level: level, "rpc finished", metadata: metadata)
        if let failure { throw failure }
    }

    /// Server faults at error level; everything a client can cause at info.
    static func level(for code: StatusCode) -> Logger.Level {
        switch code {
        case .internal, .unknown, .dataLoss: return .error
        default: return .info
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return (milliseconds * 1000).rounded() / 1000
    }
}
