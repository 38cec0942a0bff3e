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
    /// `logger`'s handler when it is the services' own (`ServiceMain` installs it): the line then
    /// goes to it with its fields in key order, not through swift-log's metadata dictionary.
    private let handler: StructuredLogHandler?

    /// Logs to `logger`.
    package init(logger: Logger) {
        self.logger = logger
        self.handler = logger.handler as? StructuredLogHandler
    }

    /// Assigns the request id, runs the rest of the chain, logs its outcome.
    nonisolated(nonsending) package func intercept(_ context: ServerCallContext, next: nonisolated(nonsending) () async throws -> Void) async throws {
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
        // In key order: the handler writes them as they come, without sorting.
        var metadata: [(key: String, value: Logger.MetadataValue)] = []
        metadata.reserveCapacity(6)
        var reason: String?
        if let failure {
            if let rpc = (failure as? any RPCErrorConvertible)?.rpcError {
                reason = rpc.reason
            } else if !(failure is CancellationError) {
                metadata.append(("error", .string(String(describing: failure))))
            }
        }
        metadata.append(("peer", .string(context.peer)))
        metadata.append(("request_id", .string(requestID)))
        metadata.append(("rpc.code", .string(code.description)))
        metadata.append(("rpc.duration_ms", .stringConvertible(Self.milliseconds(elapsed))))
        metadata.append(("rpc.method", .string(context.path)))
        if let reason { metadata.append(("rpc.reason", .string(reason))) }
        if let handler {
            handler.log(level: level, message: "rpc finished", sortedMetadata: metadata)
        } else {
            logger.log(level: level, "rpc finished", metadata: Logger.Metadata(uniqueKeysWithValues: metadata))
        }
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
