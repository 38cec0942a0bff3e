package import RPC
package import Tracing

/// A sampled span once it ended: what an exporter sends.
package struct FinishedSpan: Sendable {
    package var name: String
    package var kind: SpanKind
    package var context: SpanContext
    /// The parent's id; nil for a trace's root.
    package var parentSpanID: SpanID?
    /// Nanoseconds since the Unix epoch.
    package var startNanoseconds: UInt64
    package var endNanoseconds: UInt64
    package var attributes: SpanAttributes
    package var status: SpanStatus?
    package var events: [SpanEvent]
    package var links: [Link]

    /// A link to another span (e.g. an event's producer), by its context.
    package struct Link: Sendable {
        package var context: SpanContext
        package var attributes: SpanAttributes
    }
}

/// Where a tracer hands its sampled spans when they end. Must return at once: spans end on
/// the calls' own tasks.
package protocol SpanSink: Sendable {
    func record(_ span: FinishedSpan)
    /// Sends what is buffered now (at shutdown).
    func flush() async
}
