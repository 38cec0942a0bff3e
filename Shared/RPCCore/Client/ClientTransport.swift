/// What carries gRPC calls for a client. The generated `…Client` structs are written against it,
/// so the same typed clients run over RPC's HTTP/2 client (services, tests, the CLI) and over the
/// gateway client's gRPC-Web transport on `URLSession` (apps). The four call shapes are built once
/// on ``openStream(path:kind:options:)`` (`ClientTransport+Calls.swift`).
package protocol ClientTransport: Sendable {
    /// Opens a call on `path` (`/package.Service/Method`) before any message is sent. Throws
    /// UNIMPLEMENTED for a shape the transport cannot carry.
    func openStream(path: String, kind: CallKind, options: CallOptions) async throws -> any ClientStream

    /// Closes the transport's connections; calls after this fail with UNAVAILABLE.
    func close()
}

/// The shape of a call: how many messages go each way.
package enum CallKind: Sendable, Equatable {
    case unary
    case serverStreaming
    case clientStreaming
    case bidirectional

    /// Whether every request message is sent before any response is read, which a transport
    /// without full duplex (an HTTP/1.1 request body) can carry.
    package var isHalfDuplex: Bool { self != .bidirectional }
}
