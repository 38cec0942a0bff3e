/// What the admin listener serves: `/metrics`, `/healthz`, `/readyz`.
package struct AdminRoutes: Sendable {
    /// Rendered by `/metrics`.
    package let metrics: RuntimeMetrics
    /// Consulted by `/readyz`.
    package let readiness: Readiness

    /// Routes over the service's metrics and readiness.
    package init(metrics: RuntimeMetrics, readiness: Readiness) {
        self.metrics = metrics
        self.readiness = readiness
    }

    /// The response to one request. HEAD is answered like GET without the body (RFC 9110 §9.3.2).
    package func respond(to request: AdminRequestHead) async -> AdminResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return AdminResponse(status: 405, body: "method not allowed\n", headers: [("Allow", "GET, HEAD")])
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
