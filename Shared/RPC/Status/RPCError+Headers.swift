import HTTP2

extension RPCError {
    /// Appends this status as gRPC header fields: `grpc-status`, `grpc-message` (percent-encoded,
    /// when not empty), `grpc-status-details-bin` (when there is a reason) and the trailers. The
    /// message and ErrorInfo metadata go out `bounded`.
    func appendStatusHeaders(to headers: inout [HTTP2Header]) {
        let status = bounded
        headers.append(HTTP2Header("grpc-status", String(code.rawValue)))
        if !status.message.isEmpty {
            headers.append(HTTP2Header("grpc-message", PercentEncoding.encode(status.message), indexed: false))
        }
        if let details = status.statusDetailsBytes() {
            headers.append(HTTP2Header("grpc-status-details-bin", Base64.encode(details), indexed: false))
        }
        trailers.append(to: &headers)
    }

    /// The head every gRPC response starts with.
    static let responseHead = [
        HTTP2Header(":status", "200"),
        HTTP2Header("content-type", "application/grpc"),
        HTTP2Header("grpc-accept-encoding", "gzip"),
    ]
}
