package import HTTP2
package import IOLoop
package import Tracing
package import Wire

/// Settings of an RPC server.
package struct RPCServerConfiguration: Sendable {
    package var host = "127.0.0.1"
    package var port = 0
    /// Event loops; one per core the process may use when nil (`AvailableCores`: its affinity
    /// and its container's CPU limit).
    package var loopCount: Int?
    package var maxReceiveMessageSize = 4 << 20
    package var maxSendMessageSize = 16 << 20
    /// Request bytes a streaming handler may leave unread before its stream's window closes.
    package var maxBufferedRequestBytes = 1 << 20
    package var decodingLimits = DecodingLimits()
    package var http2 = HTTP2Configuration()
    package var security: TransportSecurity = .plaintext
    /// Browser origins allowed to call gRPC-Web (none by default).
    package var cors = CORSPolicy()

    package init() {}
}

/// A gRPC server: routes HTTP/2 streams to registered services. Every server also serves
/// `grpc.health.v1.Health`. gRPC-Web requests are served on the same port by the same calls,
/// which then frame their status into the body (`ResponseFraming`).
package final class RPCServer: Sendable {
    package let configuration: RPCServerConfiguration
    package let health: HealthService
    private let group: EventLoopGroup
    private let http2: HTTP2Server

    /// `http`, when given, answers plain GET and HEAD requests for the paths it claims. Each
    /// call runs in a server span of `tracer` (by default the process's, `InstrumentationSystem`,
    /// as bootstrapped before this server is made), which continues the trace of the request's
    /// `traceparent` or starts one.
    package init(configuration: RPCServerConfiguration, services: [any RPCService],
                 interceptors: [any ServerInterceptor] = [], group: EventLoopGroup? = nil,
                 http: (any PlainHTTPHandler)? = nil, tracer: (any Tracer)? = nil) throws {
        self.configuration = configuration
        let health = HealthService()
        self.health = health
        var router = RPCRouter()
        for service in services + [health] { service.register(in: &router) }
        let options = ServerCallOptions(
            maxReceiveMessageSize: configuration.maxReceiveMessageSize,
            maxSendMessageSize: configuration.maxSendMessageSize,
            maxBufferedRequestBytes: configuration.maxBufferedRequestBytes,
            decodingLimits: DecodingLimits(maxDepth: configuration.decodingLimits.maxDepth,
                                           maxMessageSize: configuration.maxReceiveMessageSize),
            interceptors: interceptors,
            tracer: tracer ?? InstrumentationSystem.tracer,
            scopesTracer: tracer != nil)
        let group = try group ?? EventLoopGroup(loopCount: configuration.loopCount, name: "rv-server")
        self.group = group
        self.http2 = HTTP2Server(host: configuration.host, port: configuration.port, group: group,
                                 security: configuration.security, configuration: configuration.http2,
                                 handler: RPCDispatcher(router: router, options: options, http: http, cors: configuration.cors))
        for service in services { health.setStatus(.serving, for: service.serviceName) }
        health.setStatus(.serving, for: "")
        health.setStatus(.serving, for: HealthService.livenessService)
    }

    /// Binds and starts serving; returns the bound port.
    @discardableResult
    package func start() throws -> Int {
        try http2.start()
        return http2.port
    }

    package var port: Int { http2.port }

    /// The event loops serving calls.
    package var loopCount: Int { group.loops.count }

    /// Response bytes held in memory for slow or stalled clients (see `HTTP2Counters`).
    package var bufferedOutboundBytes: Int { http2.counters.bufferedOutboundBytes }

    /// Marks every service NOT_SERVING, sends GOAWAY, lets calls finish for up to `gracePeriod`.
    package func shutdown(gracePeriod: Duration = .seconds(10)) async {
        health.enterShutdown()
        await http2.shutdown(gracePeriod: gracePeriod)
    }
}

/// Turns each new HTTP/2 stream into a call of the method its `:path` names.
struct RPCDispatcher: HTTP2ServerStreamHandler {
    let router: RPCRouter
    let options: ServerCallOptions
    let http: (any PlainHTTPHandler)?
    let cors: CORSPolicy

    func openStream(_ stream: HTTP2Stream, headers: [HTTP2Header]) -> any HTTP2StreamDelegate {
        let path = headers[first: ":path"] ?? ""
        let method = headers[first: ":method"]
        if let http, method == "GET" || method == "HEAD" {
            let request = PlainHTTPRequest(method: method ?? "GET", target: path,
                                           headers: headers.filter { !$0.name.hasPrefix(":") }.map { ($0.name, $0.value) })
            if http.handles(path: request.path) { return PlainHTTPStream.start(stream, request: request, handler: http) }
        }
        if method == "OPTIONS" {
            return RejectedStream.respond(stream, headers: cors.preflightResponse(to: headers))
        }
        guard method == "POST" else {
            return RejectedStream.respondHTTP(stream, status: "405")
        }
        guard let contentType = headers[first: "content-type"],
              let wire = GRPCContentType.wireFormat(of: contentType) else {
            return RejectedStream.respondHTTP(stream, status: "415")
        }
        let framing = wire.format == .grpc ? ResponseFraming.grpc : ResponseFraming(
            format: wire.format, contentType: wire.responseType, extraHeaders: cors.responseHeaders(origin: headers[first: "origin"]))
        if let encoding = headers[first: "grpc-encoding"], encoding != "identity", encoding != "gzip" {
            return RejectedStream.respondStatus(stream, framing, RPCError(
                code: .unimplemented, message: "grpc-encoding \(RPCError.truncate(encoding, toUTF8Bytes: 100)) is not supported",
                reason: "UNSUPPORTED_ENCODING"))
        }
        guard let route = router.route(for: path) else {
            return RejectedStream.respondStatus(stream, framing, RPCError(
                code: .unimplemented, message: "method \(RPCError.truncate(path, toUTF8Bytes: 200)) is not implemented",
                reason: "UNIMPLEMENTED"))
        }
        var timeout: UInt64?
        if let text = headers[first: "grpc-timeout"] {
            guard let parsed = GRPCTimeout.parse(text) else {
                return RejectedStream.respondStatus(stream, framing, RPCError(
                    code: .invalidArgument, message: "malformed grpc-timeout", reason: "BAD_TIMEOUT"))
            }
            timeout = parsed
        }
        let accepts = headers[first: "grpc-accept-encoding"]?.split(separator: ",")
            .contains { $0.trimmingSpaces == "gzip" } ?? false
        let now = MonotonicClock.nanoseconds()
        let context = ServerCallContext(
            path: path, requestMetadata: Metadata(headers: headers), peer: stream.connectionPeer,
            deadline: timeout.map { now.addingReportingOverflow($0).overflow ? UInt64.max : now + $0 })
        let call = ServerCall(stream: stream, route: route, context: context, options: options, framing: framing,
                              requestCompressed: headers[first: "grpc-encoding"] == "gzip",
                              clientAcceptsGzip: accepts)
        call.start(timeoutNanoseconds: timeout)
        return call
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// A stream answered without running a handler; whatever the client still sends is discarded.
final class RejectedStream: HTTP2StreamDelegate {
    let stream: HTTP2Stream

    private init(stream: HTTP2Stream) { self.stream = stream }

    static func respondHTTP(_ stream: HTTP2Stream, status: String) -> RejectedStream {
        respond(stream, headers: [HTTP2Header(":status", status)])
    }

    /// A complete response without a body.
    static func respond(_ stream: HTTP2Stream, headers: [HTTP2Header]) -> RejectedStream {
        stream.send(headers: headers, end: .endStream)
        return RejectedStream(stream: stream)
    }

    /// A gRPC status and nothing else: Trailers-Only for gRPC, the head and the trailer frame
    /// for gRPC-Web.
    static func respondStatus(_ stream: HTTP2Stream, _ framing: ResponseFraming, _ error: RPCError) -> RejectedStream {
        var status: [HTTP2Header] = []
        error.appendStatusHeaders(to: &status)
        let ending = framing.ending(status)
        stream.send(headers: framing.head(), data: ending.data, end: ending.end)
        return RejectedStream(stream: stream)
    }

    func didReceiveHeaders(_ headers: [HTTP2Header], endStream: Bool) {}
    func didReceiveData(_ bytes: UnsafeRawBufferPointer) { stream.consume(bytes.count) }
    func didReceiveEnd() {}
    func didClose(errorCode: UInt32) {}
}
