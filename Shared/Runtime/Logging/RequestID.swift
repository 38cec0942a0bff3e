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
        // Written in place: one allocation, where radix formatting, padding and concatenation
        // took five (this runs on every call without an id).
        return String(unsafeUninitializedCapacity: 32) { buffer in
            writeHex(prefix, into: buffer, at: 0)
            writeHex(sequence, into: buffer, at: 16)
            return 32
        }
    }

    private static let prefix: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()

    private static let counter = Atomic<UInt64>(0)

    /// The 16 lowercase hex digits of `value` into `buffer[offset..<offset + 16]`.
    private static func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        for index in 0..<16 {
            let nibble = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0xF
            buffer[offset + index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
        }
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
