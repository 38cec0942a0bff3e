package import RPCCore

/// What a transport gives the gateway client: gRPC calls to the gateway (`ClientTransport`), a
/// plain GET of a signed download URL on the same host. Two exist: gRPC-Web over
/// `URLSession` (``GatewayTransport/grpcWeb(sessionConfiguration:)``, in this module) and
/// HTTP/2 over nghttp2 (`.http2`, in GatewayClientHTTP2).
package protocol GatewayConnection: ClientTransport {
    /// A GET of `target` (path and query on the gateway's host), without credentials: the URL
    /// is the permission. Any HTTP status is returned; a failure to get one throws UNAVAILABLE,
    /// DEADLINE_EXCEEDED after `timeout`.
    func download(_ target: String, timeout: Duration) async throws -> DownloadResponse

    /// Whether bidirectional calls (both sides sending at once) go through: true on HTTP/2,
    /// false on gRPC-Web over `URLSession`, whose calls send their requests as one body. APIs
    /// with a half-duplex alternative (video calls: Attach and Send) choose by it.
    var carriesBidirectionalStreams: Bool { get }
}

/// The answer to ``GatewayConnection/download(_:timeout:)``.
package struct DownloadResponse: Sendable {
    package var status: Int
    /// Header fields, names lowercase.
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    package init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
