package import Logging
import Tracing

extension Logger.MetadataProvider {
    /// `trace_id` and `span_id` of the current task's span, on every line logged inside a
    /// traced call (the RPC server runs each handler in its call's span).
    package static let traceContext = Logger.MetadataProvider {
        guard let span = InstrumentationContext.current?.spanContext else { return [:] }
        return ["trace_id": .string(span.traceID.hex), "span_id": .string(span.spanID.hex)]
    }
}
