/// A plain HTTP GET or HEAD request served beside gRPC (signed downloads): on the gRPC port over
/// HTTP/2 and on the admin port over HTTP/1.1.
package struct PlainHTTPRequest: Sendable {
    /// `GET` or `HEAD`.
    package var method: String
    /// The path without its query.
    package var path: String
    /// The query without its `?` (empty when there is none).
    package var query: String
    /// Header fields with lowercase names.
    package var headers: [(name: String, value: String)]

    /// A request; tests build these directly.
    package init(method: String, path: String, query: String = "", headers: [(name: String, value: String)] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }

    /// Splits a request target (`/path?query`).
    package init(method: String, target: String, headers: [(name: String, value: String)]) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.init(method: method, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : "", headers: headers)
    }

    /// The first value of header `name` (lowercase).
    package func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// The first value of query parameter `name` (not percent-decoded: our parameters never need it).
    package func queryItem(_ name: String) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts[0] == name { return parts.count > 1 ? String(parts[1]) : "" }
        }
        return nil
    }
}

/// A complete response to a `PlainHTTPRequest`; `Content-Length` is added from the body (for
/// HEAD, the length the GET would have: `contentLength`).
package struct PlainHTTPResponse: Sendable {
    package var status: Int
    /// Header fields (lowercase names), `content-type` among them.
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// The body length a GET carries; for HEAD the body is empty but this is what is announced.
    package var contentLength: Int

    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], contentLength: Int? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.contentLength = contentLength ?? body.count
    }

    /// A short plain-text response (errors).
    package static func text(_ status: Int, _ message: String) -> PlainHTTPResponse {
        PlainHTTPResponse(status: status, headers: [("content-type", "text/plain; charset=utf-8"), ("cache-control", "no-store")],
                          body: Array((message + "\n").utf8))
    }
}

/// Serves plain HTTP GET/HEAD for the paths it claims; the server routes everything else as before.
package protocol PlainHTTPHandler: Sendable {
    /// Whether `path` is one of this handler's.
    func handles(path: String) -> Bool
    /// The response to `request` (a GET or HEAD of a path it handles).
    func respond(to request: PlainHTTPRequest) async -> PlainHTTPResponse
}
