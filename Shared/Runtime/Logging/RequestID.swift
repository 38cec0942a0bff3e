package import Logging
package import RPC
import Synchronization

/// The id that ties a call's log line to the client's: `x-request-id` from the request when it
/// is sane, otherwise 32 random hex digits.
package enum RequestID {
    /// The request and response metadata key.
    package static let metadataKey = Metadata.requestIDKey
    /// The key under which the id is stored in `ServerCallContext` values.
    package static let contextKey = "request-id"

    /// The client's id when it is 1–128 visible ASCII characters (so it cannot forge log lines),
    /// else a new one.
    package static func resolve(_ metadata: Metadata) -> String {
        if let given = metadata[string: metadataKey], isAcceptable(given) { return given }
        return generate()
    }

    static func isAcceptable(_ id: String) -> Bool {
        let bytes = id.utf8
        return (1...128).contains(bytes.count) && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// A new id: 32 lowercase hex digits, a random per-process prefix and a counter. Unique,
    /// not secret (ids only tie log lines together), and no system call per request.
    package static func generate() -> String {
        let sequence = counter.add(1, ordering: .relaxed).newValue
        return prefix + hex(sequence)
    }

    private static let prefix: String = {
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next() as UInt64)
    }()

    private static let counter = Atomic<UInt64>(0)

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension ServerCallContext {
    /// The call's request id, set by `LoggingInterceptor`.
    package var requestID: String? { self[value: RequestID.contextKey] }
}

extension Logger {
    /// This logger with the call's method and request id attached, for handlers' own log lines.
    package func forCall(_ context: ServerCallContext) -> Logger {
        var logger = self
        logger[metadataKey: "rpc.method"] = .string(context.path)
        if let requestID = context.requestID { logger[metadataKey: "request_id"] = .string(requestID) }
        return logger
    }
}
