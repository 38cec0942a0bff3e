import RPC
import Synchronization
package import Tracing

/// A span of `RuntimeTracer`. A sampled span records its name, attributes, status, events and
/// links and hands them to the tracer's sink when it ends; an unsampled one only carries its
/// context (for propagation and log lines) and ignores the rest.
package final class RuntimeSpan: Tracing.Span {
    package let context: InstrumentationContext
    let spanContext: SpanContext
    let parentSpanID: SpanID?
    let kind: SpanKind
    let startNanoseconds: UInt64
    /// Nil for an unsampled span.
    private let sink: (any SpanSink)?
    private let state: Mutex<State>

    private struct State {
        var name: String
        var attributes = SpanAttributes()
        var status: SpanStatus?
        var events: [SpanEvent] = []
        var links: [FinishedSpan.Link] = []
        var ended = false
    }

    init(name: String, context: InstrumentationContext, spanContext: SpanContext, parentSpanID: SpanID?,
         kind: SpanKind, startNanoseconds: UInt64, sink: (any SpanSink)?) {
        self.context = context
        self.spanContext = spanContext
        self.parentSpanID = parentSpanID
        self.kind = kind
        self.startNanoseconds = startNanoseconds
        self.sink = sink
        self.state = Mutex(State(name: name))
    }

    package var isRecording: Bool { sink != nil && !state.withLock { $0.ended } }

    package var operationName: String {
        get { state.withLock { $0.name } }
        set { if sink != nil { state.withLock { $0.name = newValue } } }
    }

    package var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { if sink != nil { state.withLock { if !$0.ended { $0.attributes = newValue } } } }
    }

    package func setStatus(_ status: SpanStatus) {
        guard sink != nil else { return }
        state.withLock { state in
            // OpenTelemetry: once OK, a span's status no longer changes.
            if !state.ended, state.status?.code != .ok { state.status = status }
        }
    }

    package func addEvent(_ event: SpanEvent) {
        guard sink != nil else { return }
        state.withLock { if !$0.ended { $0.events.append(event) } }
    }

    /// Records the error's type only: an error's description may hold user data.
    package func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes,
                                                     at instant: @autoclosure () -> Instant) {
        guard sink != nil else { return }
        var eventAttributes = attributes
        eventAttributes["exception.type"] = String(reflecting: type(of: error))
        addEvent(SpanEvent(name: "exception", at: instant(), attributes: eventAttributes))
    }

    package func addLink(_ link: SpanLink) {
        guard sink != nil, let linked = link.context.spanContext else { return }
        state.withLock { if !$0.ended { $0.links.append(FinishedSpan.Link(context: linked, attributes: link.attributes)) } }
    }

    package func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        guard let sink else { return }
        let finished = state.withLock { state -> FinishedSpan? in
            guard !state.ended else { return nil }
            state.ended = true
            return FinishedSpan(name: state.name, kind: kind, context: spanContext, parentSpanID: parentSpanID,
                                startNanoseconds: startNanoseconds, endNanoseconds: instant().nanosecondsSinceEpoch,
                                attributes: state.attributes, status: state.status, events: state.events,
                                links: state.links)
        }
        if let finished { sink.record(finished) }
    }
}
