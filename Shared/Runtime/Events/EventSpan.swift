import Tracing

/// The spans of events and queued jobs, by the OpenTelemetry semantic conventions for
/// messaging: a producer span where one is appended ("create <type>") whose context is stored
/// with it (`EventTraceContext`), and a consumer span where one is handled ("process <type>"),
/// a child of the producer's span in the producer's trace and linked to it, so a chain of events
/// (a match, its conversation, its push) is one trace. Attributes name the system, operation,
/// destination (the event's type) and consumer: never a payload.
///
/// Only a sampled trace is carried: an unsampled one is recorded nowhere, so its events store no
/// context and their handling starts no span (no allocation on that path).
package enum EventSpan {
    /// `messaging.system`: the services' outboxes and queues in Postgres.
    package static let system = "rendezvous"

    /// The context to store with `count` messages of `destination` (an event type) appended
    /// now: a producer span's, a child of the current task's sampled span, ended at once; nil
    /// outside a sampled span.
    package static func produce(_ destination: String, count: Int) -> EventTraceContext? {
        guard let current = InstrumentationContext.current, current.spanContext?.isSampled == true else { return nil }
        let tracer = InstrumentationSystem.tracer
        let span = tracer.startSpan("create \(destination)", context: current, ofKind: .producer)
        if span.isRecording {
            span.updateAttributes { attributes in
                describe(&attributes, destination: destination, operation: "create")
                if count > 1 { attributes["messaging.batch.message_count"] = count }
            }
        }
        var stored = EventTraceContext(traceParent: "")
        tracer.inject(span.context, into: &stored, using: EventTraceContext.Writer())
        span.end()
        return stored.traceParent.isEmpty ? nil : stored
    }

    /// Runs `body` (the handling of one message of `destination`) in a consumer span continuing
    /// `context`, the producer's; without a context, as it is.
    nonisolated(nonsending) package static func consume<T>(
        _ destination: String, context: EventTraceContext?, messageID: String?, consumer: String,
        _ body: () async throws -> T
    ) async throws -> T {
        guard let context else { return try await body() }
        let tracer = InstrumentationSystem.tracer
        var producer = InstrumentationContext.topLevel
        tracer.extract(context, into: &producer, using: EventTraceContext.Reader())
        guard producer.spanContext != nil else { return try await body() }
        let span = tracer.startSpan("process \(destination)", context: producer, ofKind: .consumer)
        if span.isRecording {
            span.addLink(SpanLink(context: producer, attributes: [:]))
            span.updateAttributes { attributes in
                describe(&attributes, destination: destination, operation: "process")
                attributes["messaging.consumer.group.name"] = consumer
                if let messageID { attributes["messaging.message.id"] = messageID }
            }
        }
        defer { span.end() }
        do {
            return try await InstrumentationContext.$current.withValue(span.context) { try await body() }
        } catch {
            if span.isRecording {
                span.attributes["error.type"] = String(reflecting: type(of: error))
                span.setStatus(SpanStatus(code: .error))
            }
            throw error
        }
    }

    private static func describe(_ attributes: inout SpanAttributes, destination: String, operation: String) {
        attributes["messaging.system"] = system
        attributes["messaging.operation"] = operation
        attributes["messaging.operation.type"] = operation
        attributes["messaging.destination.name"] = destination
    }
}
