package import RPC

/// What the admin listener serves: `/metrics`, `/healthz`, `/readyz`, and over HTTP/1.1 the
/// service's own plain HTTP paths (`http`, also served on the gRPC port over HTTP/2).
package struct AdminRoutes: Sendable {
    /// Rendered by `/metrics`.
    package let metrics: RuntimeMetrics
    /// Consulted by `/readyz`.
    package let readiness: Readiness
    /// The service's own GET/HEAD paths, if any.
    package let http: (any PlainHTTPHandler)?

    /// Routes over the service's metrics and readiness.
    package init(metrics: RuntimeMetrics, readiness: Readiness, http: (any PlainHTTPHandler)? = nil) {
        self.metrics = metrics
        self.readiness = readiness
        self.http = http
    }

    /// The response to one request. HEAD is answered like GET without the body (RFC 9110 §9.3.2).
    package func respond(to request: AdminRequestHead) async -> AdminResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return AdminResponse(status: 405, body: "method not allowed\n", headers: [("Allow", "GET, HEAD")])
        }
        if let http, http.handles(path: request.path) {
            let plain = PlainHTTPRequest(method: request.method, path: request.path, query: request.query,
                                         headers: request.headers.map { ($0.key, $0.value) })
            let response = await http.respond(to: plain)
            var admin = AdminResponse(status: response.status, contentType: "application/octet-stream", body: response.body)
            admin.contentLength = response.contentLength
            for (name, value) in response.headers {
                if name == "content-type" { admin.contentType = value } else { admin.headers.append((name, value)) }
            }
            return admin
        }
        switch request.path {
        case "/metrics":
            return AdminResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
                                 body: metrics.exposition())
        case "/healthz":
            return AdminResponse(status: 200, body: "ok\n")
        case "/readyz":
            let (ready, detail) = await readiness.evaluate()
            return AdminResponse(status: ready ? 200 : 503, body: detail + "\n")
        default:
            return AdminResponse(status: 404, body: "not found\n")
        }
    }
}
