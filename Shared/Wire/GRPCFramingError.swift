/// Why a gRPC message stream could not be split into messages.
///
/// The description gives sizes and the flag value, never payload bytes.
public struct GRPCFramingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A kind of framing failure, with its details.
    public enum Code: Hashable, Sendable {
        /// A message declared `size` bytes, above the receiver's `limit`.
        case messageTooLarge(size: Int, limit: Int)
        /// The compressed-flag byte was `flag`, neither 0 nor 1.
        case invalidCompressionFlag(UInt8)
        /// The stream ended inside a message.
        case truncatedAtEndOfStream
    }

    /// What went wrong.
    public var code: Code

    /// Creates an error.
    public init(_ code: Code) {
        self.code = code
    }

    /// A message declared `size` bytes, above `limit`.
    public static func messageTooLarge(size: Int, limit: Int) -> GRPCFramingError {
        GRPCFramingError(.messageTooLarge(size: size, limit: limit))
    }

    /// The compressed-flag byte was `flag`, neither 0 nor 1.
    public static func invalidCompressionFlag(_ flag: UInt8) -> GRPCFramingError {
        GRPCFramingError(.invalidCompressionFlag(flag))
    }

    /// The stream ended inside a message.
    public static let truncatedAtEndOfStream = GRPCFramingError(.truncatedAtEndOfStream)

    /// For example "gRPC message of 5000000 bytes exceeds the limit of 4194304".
    public var description: String {
        switch code {
        case let .messageTooLarge(size, limit):
            "gRPC message of \(size) bytes exceeds the limit of \(limit)"
        case let .invalidCompressionFlag(flag):
            "gRPC message has invalid compressed flag \(flag)"
        case .truncatedAtEndOfStream:
            "gRPC stream ended inside a message"
        }
    }
}
