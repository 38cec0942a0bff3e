package import Wire

/// The shape of an RPC: how many messages each side sends.
package enum RPCKind: Sendable {
    case unary
    case serverStreaming
    case clientStreaming
    case bidirectional

    /// True when the request is exactly one message, delivered before the handler starts.
    var hasSingleRequest: Bool { self == .unary || self == .serverStreaming }
}

/// A registered method: its kind and a handler over raw messages.
package struct RPCRoute: Sendable {
    package var kind: RPCKind
    package var handler: @Sendable (ServerCall) async throws -> Void
    /// The server span's name, `package.Service/Method`: set when the route is added, so a
    /// call does not derive it from its path again.
    var spanName = ""
}

/// A service's methods, registered by path.
package protocol RPCService: Sendable {
    /// The fully qualified service name, e.g. `grpc.testing.TestService`.
    var serviceName: String { get }
    func register(in router: inout RPCRouter)
}

/// The method table of a server, built once before it starts.
package struct RPCRouter: Sendable {
    private(set) var routes: [String: RPCRoute] = [:]

    package init() {}

    func route(for path: String) -> RPCRoute? { routes[path] }

    package mutating func add(path: String, route: RPCRoute) {
        var route = route
        route.spanName = RPCSpan.name(path: path)
        routes[path] = route
    }

    package mutating func unary<Request: ProtoMessage, Response: ProtoMessage>(
        _ service: String, _ method: String,
        _ body: @escaping @Sendable (Request, ServerCallContext) async throws -> Response
    ) {
        add(path: "/\(service)/\(method)", route: RPCRoute(kind: .unary) { call in
            let request: Request = try call.decodeSingleRequest()
            let response = try await body(request, call.context)
            call.sendFinal(response)
        })
    }

    package mutating func serverStreaming<Request: ProtoMessage, Response: ProtoMessage>(
        _ service: String, _ method: String,
        _ body: @escaping @Sendable (Request, ResponseWriter<Response>, ServerCallContext) async throws -> Void
    ) {
        add(path: "/\(service)/\(method)", route: RPCRoute(kind: .serverStreaming) { call in
            let request: Request = try call.decodeSingleRequest()
            try await body(request, ResponseWriter(call: call), call.context)
        })
    }

    package mutating func clientStreaming<Request: ProtoMessage, Response: ProtoMessage>(
        _ service: String, _ method: String,
        _ body: @escaping @Sendable (RequestStream<Request>, ServerCallContext) async throws -> Response
    ) {
        add(path: "/\(service)/\(method)", route: RPCRoute(kind: .clientStreaming) { call in
            let response = try await body(RequestStream(call: call), call.context)
            call.sendFinal(response)
        })
    }

    package mutating func bidirectional<Request: ProtoMessage, Response: ProtoMessage>(
        _ service: String, _ method: String,
        _ body: @escaping @Sendable (RequestStream<Request>, ResponseWriter<Response>, ServerCallContext) async throws -> Void
    ) {
        add(path: "/\(service)/\(method)", route: RPCRoute(kind: .bidirectional) { call in
            try await body(RequestStream(call: call), ResponseWriter(call: call), call.context)
        })
    }
}
