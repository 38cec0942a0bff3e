import Tracing

/// The spans of gRPC calls, named and described by the OpenTelemetry semantic conventions for
/// RPC (`rpc.system` grpc, `rpc.service`, `rpc.method`, `rpc.grpc.status_code`): never a
/// message or a metadata value.
enum RPCSpan {
    /// `package.Service/Method`: the path without its leading slash.
    static func name(path: String) -> String {
        path.hasPrefix("/") ? String(path.dropFirst()) : path
    }

    /// The server span of a call, continuing the trace in `metadata` or starting one.
    static func startServer(name: String, metadata: Metadata, tracer: any Tracer) -> any Tracing.Span {
        var parent = roomyTopLevel
        tracer.extract(metadata, into: &parent, using: MetadataExtractor())
        let span = tracer.startSpan(name, context: parent, ofKind: .server)
        if span.isRecording { describe(span, name: name) }
        return span
    }

    /// An empty context with room for three keys. The services' tracer sets two in every server
    /// span's context (its span context, and whether it records): from `topLevel`, which has
    /// room for one, the second grew the storage anew on every call (about 900 instructions a
    /// call, measured).
    /// A dictionary keeps its room when its keys are removed.
    private static let roomyTopLevel: InstrumentationContext = {
        var context = InstrumentationContext.topLevel
        context[Room.self] = 0
        context[Room.Second.self] = 0
        context[Room.Third.self] = 0
        context[Room.self] = nil
        context[Room.Second.self] = nil
        context[Room.Third.self] = nil
        return context
    }()

    private enum Room: InstrumentationContextKey {
        typealias Value = Int
        enum Second: InstrumentationContextKey { typealias Value = Int }
        enum Third: InstrumentationContextKey { typealias Value = Int }
    }

    /// The client span of a call from the current task, and its metadata with the span's
    /// `traceparent`. A `traceparent` the caller already put in the metadata (an app's own)
    /// is the parent instead of the task's span.
    static func startClient(path: String, host: String, port: Int,
                            metadata: Metadata) -> (span: any Tracing.Span, metadata: Metadata) {
        let tracer = InstrumentationSystem.tracer
        var parent = InstrumentationContext.current ?? .topLevel
        if metadata.contains(where: { $0.key == TraceParent.headerName }) {
            parent = .topLevel
            tracer.extract(metadata, into: &parent, using: MetadataExtractor())
        }
        let span = tracer.startSpan(name(path: path), context: parent, ofKind: .client)
        if span.isRecording {
            describe(span, name: name(path: path))
            span.attributes["server.address"] = host
            span.attributes["server.port"] = port
        }
        var metadata = metadata
        tracer.inject(span.context, into: &metadata, using: MetadataInjector())
        return (span, metadata)
    }

    /// `name`: the span's, `package.Service/Method`.
    private static func describe(_ span: any Tracing.Span, name: String) {
        span.updateAttributes { attributes in
            attributes["rpc.system"] = "grpc"
            if let slash = name.lastIndex(of: "/") {
                attributes["rpc.service"] = String(name[..<slash])
                attributes["rpc.method"] = String(name[name.index(after: slash)...])
            }
        }
    }

    /// Records the call's final status and ends the span. An error status follows the
    /// conventions: every non-OK code on the client; on the server only the codes that mean
    /// the server failed, not the caller.
    static func end(_ span: any Tracing.Span, code: StatusCode, kind: SpanKind) {
        if span.isRecording {
            span.attributes["rpc.grpc.status_code"] = code.rawValue
            let isError: Bool
            switch kind {
            case .server:
                switch code {
                case .unknown, .deadlineExceeded, .unimplemented, .internal, .unavailable, .dataLoss: isError = true
                default: isError = false
                }
            default:
                isError = code != .ok
            }
            if isError { span.setStatus(SpanStatus(code: .error, message: code.description)) }
        }
        span.end()
    }
}
