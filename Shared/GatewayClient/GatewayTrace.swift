import RPCCore

/// The W3C trace of the gateway's calls: every call sends a `traceparent`, so the edge and the
/// services log and trace it under one id, and a failed call's error names that id
/// (`RPCError.traceID`) for the user's bug report.
///
/// The client records no spans: it starts a trace with the `sampled` flag clear, leaving the
/// decision to record it to the services' sampling (W3C Trace Context 3.2.2.5). An app that
/// wants a trace recorded, or keeps traces of its own, passes its `traceparent`
/// (``GatewayClient/withTraceParent(_:_:)``).
enum GatewayTrace {
    /// The trace of the calls made by the current task; nil: each call starts its own.
    @TaskLocal static var current: TraceParent?

    /// A new trace: random trace and span ids, not sampled.
    static func start() -> TraceParent {
        var generator = SystemRandomNumberGenerator()
        var traceID = TraceID(high: 0, low: 0)
        while traceID.isZero { traceID = TraceID(high: generator.next(), low: generator.next()) }
        var spanID: UInt64 = 0
        while spanID == 0 { spanID = generator.next() }
        return TraceParent(traceID: traceID, spanID: SpanID(spanID), sampled: false)
    }
}

extension GatewayClient {
    /// Runs `body` with every gateway call it makes in the app's own trace: `traceparent` is
    /// the W3C Trace Context header of the app's current span (`00-<trace id>-<span id>-<flags>`).
    /// An invalid value is ignored: each call then starts a trace of its own, as without this.
    public static func withTraceParent<T>(_ traceparent: String, _ body: () async throws -> T) async rethrows -> T {
        try await GatewayTrace.$current.withValue(TraceParent(header: traceparent) ?? GatewayTrace.current, operation: body)
    }
}

/// The gateway's transport with a `traceparent` on every call that has none yet: the current
/// task's trace, or a new one. One place for every call, streams and refreshes included.
struct TracedGatewayConnection: GatewayConnection {
    let base: any GatewayConnection

    func openStream(path: String, kind: CallKind, options: CallOptions) async throws -> any ClientStream {
        var options = options
        if !options.metadata.contains(where: { $0.key == TraceParent.headerName }) {
            options.metadata.setTraceContext(GatewayTrace.current ?? GatewayTrace.start(), state: nil)
        }
        return try await base.openStream(path: path, kind: kind, options: options)
    }

    func close() { base.close() }

    func download(_ target: String, timeout: Duration) async throws -> DownloadResponse {
        try await base.download(target, timeout: timeout)
    }

    var carriesBidirectionalStreams: Bool { base.carriesBidirectionalStreams }
}
