/// Why gzip compression or decompression failed.
package struct GzipError: Error, Equatable, CustomStringConvertible {
    /// The kind of failure.
    package enum Code: Equatable, Sendable {
        /// Decompressing would exceed the caller's limit (gRPC: RESOURCE_EXHAUSTED).
        case outputTooLarge
        /// The input is not a valid gzip stream: bad header, checksum, truncation (gRPC: INTERNAL).
        case corrupt
        /// zlib could not allocate memory.
        case outOfMemory
        /// zlib reported a state we never expect, such as an inconsistent stream.
        case internalError
    }

    /// The kind of failure.
    package var code: Code
    /// zlib's message, or ours; never any of the data.
    package var message: String

    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The decompressed output would be larger than the limit.
    package static let outputTooLarge = GzipError(
        code: .outputTooLarge, message: "decompressed message exceeds the size limit")

    /// The input is not valid gzip; `message` is zlib's explanation.
    package static func corrupt(_ message: String) -> GzipError {
        GzipError(code: .corrupt, message: message)
    }

    package var description: String {
        "GzipError(\(self.code)): \(self.message)"
    }
}
