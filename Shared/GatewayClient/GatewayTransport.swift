/// How a `GatewayClient` reaches the gateway, chosen when it is created:
///
/// - ``grpcWeb(sessionConfiguration:)``: gRPC-Web (`application/grpc-web+proto`) over
///   `URLSession`, in this module: what an iOS app uses, since `URLSession` does not hand HTTP/2
///   trailers to apps. Unary, server-streaming and client-streaming calls (the request messages
///   sent as one body); not bidirectional calls, so video call signaling (`client.calls`) takes
///   its half-duplex form (Calls/Attach and Calls/Send) there.
/// - `.http2`: gRPC over our HTTP/2 (nghttp2, OpenSSL), in the `GatewayClientHTTP2` product:
///   every call shape; for Linux, services, tests and the CLI.
public struct GatewayTransport: Sendable {
    /// Makes the connection for a client of `configuration`.
    package let makeConnection: @Sendable (GatewayConfiguration) throws -> any GatewayConnection

    /// A transport built by `makeConnection`.
    package init(makeConnection: @escaping @Sendable (GatewayConfiguration) throws -> any GatewayConnection) {
        self.makeConnection = makeConnection
    }
}
