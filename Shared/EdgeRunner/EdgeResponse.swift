import RPCCore

/// One response of the edge as nginx logs it for the metrics (compose/nginx/render.sh
/// `--metrics-port`: `access_log syslog:...,tag=rv_edge_metrics rv_metrics`), classified for
/// `edge_responses_total{route,method,code}`.
///
/// The line is `rv1 $status $sent_http_grpc_status $sent_trailer_grpc_status $request_uri`
/// (nginx writes `-` for an empty value): the gRPC status came as a header (a trailers-only
/// answer, the edge's own refusals) or as a trailer; `$request_uri` is the path the client
/// called, also when an upstream's failure was turned into a refusal by `error_page`.
struct EdgeResponse: Hashable, Sendable {
    /// The service the path routes to (`identity` ... `media`, `interop` for /grpc.health. and
    /// /grpc.testing.), `downloads` for media's signed URLs, `unrouted` for anything else.
    var route: String
    /// The gRPC method path, or `other` where the client chose it freely (unrouted paths, methods
    /// answered UNIMPLEMENTED), or the route's prefix for downloads: label values stay bounded.
    var method: String
    /// The gRPC status's name (`OK`, `UNAVAILABLE`, ...), or the HTTP status class (`2xx`, `5xx`)
    /// when no gRPC status was sent (media's downloads, a stream cut without one).
    var code: String

    /// The services of the edge's `/rendezvous.<service>.` locations (rendezvous.conf.template).
    static let services: Set<String> = ["identity", "discovery", "messaging", "production", "media"]

    /// The response a syslog datagram from nginx describes, or nil when it is not one of ours.
    init?(datagram: String) {
        // `<PRI>Mmm dd hh:mm:ss rv_edge_metrics: rv1 ...` (nohostname: no host field).
        guard let tag = datagram.range(of: "rv_edge_metrics: ") else { return nil }
        self.init(line: datagram[tag.upperBound...])
    }

    /// The response a `rv_metrics` line describes, or nil when the line is malformed.
    init?(line: Substring) {
        let fields = line.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0] == "rv1", let status = Int(fields[1]), (100...599).contains(status) else { return nil }
        let grpcStatus = [fields[2], fields[3]].lazy.compactMap { Int($0) }.first
        if let grpcStatus {
            code = (0...16).contains(grpcStatus) ? StatusCode(rawValue: grpcStatus).description : StatusCode.unknown.description
        } else {
            code = "\(status / 100)xx"
        }
        let path = fields[4].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        (route, method) = Self.route(path: path)
        if grpcStatus == StatusCode.unimplemented.rawValue { method = "other" }
    }

    init(route: String, method: String, code: String) {
        self.route = route
        self.method = method
        self.code = code
    }

    private static func route(path: Substring) -> (route: String, method: String) {
        if path.hasPrefix("/media/v1/blobs/") { return ("downloads", "/media/v1/blobs/") }
        let method = isMethodPath(path) ? String(path) : "other"
        if path.hasPrefix("/grpc.health.") || path.hasPrefix("/grpc.testing.") { return ("interop", method) }
        if path.hasPrefix("/rendezvous."), let dot = path.dropFirst("/rendezvous.".count).firstIndex(of: ".") {
            let service = String(path[path.index(path.startIndex, offsetBy: "/rendezvous.".count)..<dot])
            if services.contains(service) { return (service, method) }
        }
        return ("unrouted", "other")
    }

    /// `/package.Service/Method`: letters, digits, `_` and `.`, one slash inside.
    private static func isMethodPath(_ path: Substring) -> Bool {
        let parts = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        return path.first == "/" && parts.count == 2 && parts.allSatisfy { part in
            !part.isEmpty && part.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x5F || byte == 0x2E
            }
        }
    }
}
