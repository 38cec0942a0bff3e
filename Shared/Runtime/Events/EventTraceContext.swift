package import Contracts
import Instrumentation
import RPC

/// The W3C Trace Context stored with an outbox event or a queued job: the `traceparent` (and
/// `tracestate`) of the span that produced it, written and read by the tracer through
/// `Injector` and `Extractor` like gRPC metadata. Identifiers and flags only, never user data.
package struct EventTraceContext: Sendable, Hashable {
    package var traceParent: String
    package var traceState: String?

    package init(traceParent: String, traceState: String? = nil) {
        self.traceParent = traceParent
        self.traceState = traceState
    }

    /// The context an event carries on the wire; nil when it carries none.
    package init?(_ event: Events.Event) {
        guard !event.traceparent.isEmpty else { return nil }
        self.init(traceParent: event.traceparent, traceState: event.tracestate.isEmpty ? nil : event.tracestate)
    }

    /// Writes a tracer's propagation fields into the context.
    package struct Writer: Injector {
        package init() {}

        package func inject(_ value: String, forKey key: String, into carrier: inout EventTraceContext) {
            switch key {
            case TraceParent.headerName: carrier.traceParent = value
            case TraceState.headerName: carrier.traceState = value
            default: break
            }
        }
    }

    /// Reads a tracer's propagation fields from the context.
    package struct Reader: Extractor {
        package init() {}

        package func extract(key: String, from carrier: EventTraceContext) -> String? {
            switch key {
            case TraceParent.headerName: carrier.traceParent
            case TraceState.headerName: carrier.traceState
            default: nil
            }
        }
    }
}
