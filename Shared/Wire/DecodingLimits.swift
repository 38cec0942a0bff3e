/// Limits applied while decoding.
public struct DecodingLimits: Sendable, Equatable {
    /// How many messages (and groups) may nest inside the top-level message.
    ///
    /// The top-level message is at depth 0, so a chain of `maxDepth` nested messages decodes
    /// and one more throws ``WireDecodingError/Code-swift.struct/depthLimitExceeded``.
    public var maxDepth: Int

    /// The largest serialized message, in bytes, that decoding accepts.
    public var maxMessageSize: Int

    /// 64 levels of nesting, 4 MiB messages.
    public static let `default` = DecodingLimits()

    /// Creates limits; the defaults match ``default``.
    public init(maxDepth: Int = 64, maxMessageSize: Int = 4 << 20) {
        self.maxDepth = maxDepth
        self.maxMessageSize = maxMessageSize
    }
}
