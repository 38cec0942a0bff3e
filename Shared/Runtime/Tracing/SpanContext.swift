package import RPC
package import Tracing

/// What identifies a span across processes: W3C Trace Context's `traceparent` fields and the
/// `tracestate` that travels with them.
package struct SpanContext: Sendable, Hashable {
    package var traceID: TraceID
    package var spanID: SpanID
    package var isSampled: Bool
    package var traceState: TraceState?
    /// Whether the span is another process's (read from `traceparent`).
    package var isRemote: Bool

    package init(traceID: TraceID, spanID: SpanID, isSampled: Bool, traceState: TraceState? = nil, isRemote: Bool = false) {
        self.traceID = traceID
        self.spanID = spanID
        self.isSampled = isSampled
        self.traceState = traceState
        self.isRemote = isRemote
    }

    /// The `traceparent` naming this span as the parent.
    package var traceParent: TraceParent {
        TraceParent(traceID: traceID, spanID: spanID, sampled: isSampled)
    }
}

extension InstrumentationContext {
    /// The span this context belongs to (a local one, or the remote caller's after `extract`).
    package var spanContext: SpanContext? {
        get { self[SpanContextKey.self] }
        set { self[SpanContextKey.self] = newValue }
    }
}

private enum SpanContextKey: InstrumentationContextKey {
    typealias Value = SpanContext
    static var nameOverride: String? { "span-context" }
}
