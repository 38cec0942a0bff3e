import Postgres
import RPC
package import Tracing

/// The services' tracer: W3C Trace Context propagation, sampling, and sampled spans handed to
/// a sink (the OTLP exporter) when they end.
///
/// Sampling: a new trace is sampled at `sampleRatio`, decided from its trace id; a local
/// child follows its parent; a remote parent that recorded (`sampled` flag set) is followed,
/// and one that did not (the edge, the gateway client: they record nothing) leaves the
/// decision to the ratio, made from the trace id too, so every service of the same ratio
/// decides alike and a trace is recorded whole or not at all.
///
/// Every span has a context, sampled or not, so `traceparent` travels on and log lines name
/// the trace either way; only sampled spans are recorded.
package struct RuntimeTracer: Tracer {
    package typealias Span = RuntimeSpan

    /// The share of new traces that are sampled, 0...1.
    package let sampleRatio: Double
    /// Nil when nothing collects spans: none is recorded.
    private let sink: (any SpanSink)?
    private let threshold: UInt64

    package init(sampleRatio: Double, sink: (any SpanSink)?) {
        let ratio = min(max(sampleRatio, 0), 1)
        self.sampleRatio = ratio
        self.sink = sink
        // Compare the trace id's low half (random) against ratio · 2^64, which rounding may
        // carry to 2^64 itself for a ratio just below 1.
        let scaled = ratio * 18_446_744_073_709_551_616.0
        self.threshold = scaled >= 18_446_744_073_709_551_615.0 ? .max : UInt64(scaled)
    }

    /// Whether a new trace with this id is sampled: decided from the id, so any process that
    /// uses the same ratio decides alike (OpenTelemetry's TraceIdRatioBased idea).
    func samples(_ traceID: TraceID) -> Bool {
        sampleRatio >= 1 || traceID.low < threshold
    }

    package func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> RuntimeSpan {
        var context = context()
        let parent = context.spanContext
        let spanContext: SpanContext
        if let parent {
            let sampled = parent.isSampled || (parent.isRemote && samples(parent.traceID))
            spanContext = SpanContext(traceID: parent.traceID, spanID: SpanIDGenerator.nextSpanID(),
                                      isSampled: sampled, traceState: parent.traceState)
        } else {
            let traceID = SpanIDGenerator.nextTraceID()
            spanContext = SpanContext(traceID: traceID, spanID: SpanIDGenerator.nextSpanID(), isSampled: samples(traceID))
        }
        context.spanContext = spanContext
        let recordedBy = spanContext.isSampled ? sink : nil
        // Postgres starts no span of its own where this one is not recorded.
        if (recordedBy != nil) != context.recordsSpans { context.recordsSpans = recordedBy != nil }
        return RuntimeSpan(name: operationName, context: context, spanContext: spanContext, parentSpanID: parent?.spanID,
                           // Only a recorded span reports its start: no clock read for the rest.
                           kind: kind, startNanoseconds: recordedBy != nil ? instant().nanosecondsSinceEpoch : 0,
                           sink: recordedBy)
    }

    package func forceFlush() {}

    /// Reads `traceparent` and `tracestate` through `TraceParent` and `TraceState`; an invalid
    /// `traceparent` leaves the context without a parent (a new trace) and drops `tracestate`.
    package func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout InstrumentationContext,
                                                      using extractor: Extract) where Extract.Carrier == Carrier {
        guard let header = extractor.extract(key: TraceParent.headerName, from: carrier),
              let parent = TraceParent(header: header) else { return }
        let state = extractor.extract(key: TraceState.headerName, from: carrier).flatMap { TraceState(headers: [$0]) }
        context.spanContext = SpanContext(traceID: parent.traceID, spanID: parent.spanID, isSampled: parent.isSampled,
                                          traceState: state, isRemote: true)
    }

    /// Writes the context's span as `traceparent` (and its `tracestate`).
    package func inject<Carrier, Inject: Injector>(_ context: InstrumentationContext, into carrier: inout Carrier,
                                                   using injector: Inject) where Inject.Carrier == Carrier {
        guard let span = context.spanContext else { return }
        injector.inject(span.traceParent.header, forKey: TraceParent.headerName, into: &carrier)
        if let state = span.traceState {
            injector.inject(state.header, forKey: TraceState.headerName, into: &carrier)
        }
    }
}
