package import HTTP2

/// Which web origins may call gRPC-Web from a browser (the Fetch standard's CORS protocol):
/// preflight answers, and the fields that let the page read a response.
///
/// Credentials (cookies) are never allowed: calls carry `authorization: Bearer …`, which a
/// preflight allows as a request header like any other, so a page on another origin cannot
/// ride a user's cookies.
package struct CORSPolicy: Sendable, Equatable {
    /// Origins as browsers send them (`https://app.example.com`, lowercase, no path); `*`
    /// allows any. Empty: no CORS fields, and every preflight is refused.
    package var allowedOrigins: [String]

    /// Response fields a page may read besides the CORS-safelisted ones.
    static let exposedHeaders = "grpc-status, grpc-message, grpc-status-details-bin"
    /// Request fields allowed when a preflight names none.
    static let defaultAllowedHeaders = "authorization, content-type, grpc-timeout, x-grpc-web, x-user-agent"

    package init(allowedOrigins: [String] = []) {
        self.allowedOrigins = allowedOrigins.map { $0.lowercased() }
    }

    /// The `access-control-allow-origin` value for a request from `origin`; nil when not allowed.
    func allowOrigin(for origin: String?) -> String? {
        guard let origin, !allowedOrigins.isEmpty else { return nil }
        if allowedOrigins.contains("*") { return "*" }
        return allowedOrigins.contains(origin.lowercased()) ? origin : nil
    }

    /// Fields for the head of a gRPC-Web response to a request carrying `origin`.
    func responseHeaders(origin: String?) -> [HTTP2Header] {
        guard let allowed = allowOrigin(for: origin) else { return [] }
        var headers = [HTTP2Header("access-control-allow-origin", allowed),
                       HTTP2Header("access-control-expose-headers", Self.exposedHeaders)]
        if allowed != "*" { headers.append(HTTP2Header("vary", "origin")) }
        return headers
    }

    /// The complete answer to an `OPTIONS` request: 204 with the grants for an allowed origin,
    /// 403 for any other origin, 405 when the request carries no `origin` (not a preflight).
    func preflightResponse(to request: [HTTP2Header]) -> [HTTP2Header] {
        guard let origin = request[first: "origin"] else { return [HTTP2Header(":status", "405")] }
        guard let allowed = allowOrigin(for: origin) else { return [HTTP2Header(":status", "403")] }
        return [
            HTTP2Header(":status", "204"),
            HTTP2Header("access-control-allow-origin", allowed),
            HTTP2Header("access-control-allow-methods", "POST, OPTIONS"),
            HTTP2Header("access-control-allow-headers", request[first: "access-control-request-headers"] ?? Self.defaultAllowedHeaders),
            HTTP2Header("access-control-max-age", "86400"),
            HTTP2Header("vary", "origin, access-control-request-headers"),
        ]
    }
}
