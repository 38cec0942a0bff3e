/// A complete HTTP/1.1 response; the connection closes after it.
package struct AdminResponse: Sendable, Equatable {
    /// The HTTP status code.
    package var status: Int
    /// The `Content-Type` header.
    package var contentType = "text/plain; charset=utf-8"
    /// Extra headers, e.g. `Allow` on a 405.
    package var headers: [(String, String)] = []
    /// The body; its length becomes `Content-Length`.
    package var body: [UInt8]
    /// `Content-Length` when it is not the body's (a HEAD answered without the body).
    package var contentLength: Int?

    /// A plain-text response.
    package init(status: Int, body: String, headers: [(String, String)] = []) {
        self.status = status
        self.body = Array(body.utf8)
        self.headers = headers
    }

    /// A response with its own content type.
    package init(status: Int, contentType: String, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    /// Equal when status, content type, headers (in order) and body are.
    package static func == (lhs: AdminResponse, rhs: AdminResponse) -> Bool {
        lhs.status == rhs.status && lhs.contentType == rhs.contentType && lhs.body == rhs.body
            && lhs.headers.map { "\($0.0): \($0.1)" } == rhs.headers.map { "\($0.0): \($0.1)" }
    }

    /// The status line, headers and (unless `omitBody`, for HEAD) the body.
    func serialized(omitBody: Bool = false) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        head += "Content-Type: \(contentType)\r\n"
        head += "Content-Length: \(contentLength ?? body.count)\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "cache-control" }) { head += "Cache-Control: no-store\r\n" }
        head += "Connection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (omitBody ? [] : body)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 206: return "Partial Content"
        case 304: return "Not Modified"
        case 403: return "Forbidden"
        case 416: return "Range Not Satisfiable"
        case 400: return "Bad Request"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 431: return "Request Header Fields Too Large"
        case 503: return "Service Unavailable"
        default: return "Status \(status)"
        }
    }
}
