/// One message taken out of a gRPC stream, still compressed if its flag said so.
public struct GRPCFramedMessage: Sendable, Equatable {
    /// Whether the sender compressed the payload with the stream's `grpc-encoding`.
    public var compressed: Bool
    /// The message bytes, without the 5-byte prefix.
    public var payload: [UInt8]

    /// Creates a message.
    public init(compressed: Bool, payload: [UInt8]) {
        self.compressed = compressed
        self.payload = payload
    }
}
