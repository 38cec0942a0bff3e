import Tracing

/// A finished span in OTLP's shape (`opentelemetry.proto.trace.v1.Span`).
enum OTLPSpan {
    static func make(_ span: FinishedSpan) -> OTLP.Span {
        OTLP.Span(
            traceID: span.context.traceID.bytes,
            spanID: span.context.spanID.bytes,
            traceState: span.context.traceState?.header ?? "",
            parentSpanID: span.parentSpanID?.bytes ?? [],
            flags: span.context.isSampled ? 0x01 : 0x00,
            name: span.name,
            kind: kind(span.kind),
            startTimeUnixNano: span.startNanoseconds,
            endTimeUnixNano: max(span.endNanoseconds, span.startNanoseconds),
            attributes: attributes(span.attributes),
            events: span.events.map { event in
                OTLP.Span.Event(timeUnixNano: event.nanosecondsSinceEpoch, name: event.name,
                                attributes: attributes(event.attributes))
            },
            links: span.links.map { link in
                OTLP.Span.Link(traceID: link.context.traceID.bytes, spanID: link.context.spanID.bytes,
                               traceState: link.context.traceState?.header ?? "", attributes: attributes(link.attributes),
                               flags: link.context.isSampled ? 0x01 : 0x00)
            },
            status: span.status.map { status in
                OTLP.Status(message: status.message ?? "", code: status.code == .ok ? .ok : .error)
            }
        )
    }

    static func kind(_ kind: SpanKind) -> OTLP.Span.SpanKind {
        switch kind {
        case .server: .server
        case .client: .client
        case .producer: .producer
        case .consumer: .consumer
        case .internal: .internal
        }
    }

    static func attributes(_ attributes: SpanAttributes) -> [OTLP.KeyValue] {
        var values: [OTLP.KeyValue] = []
        attributes.forEach { key, value in
            if let converted = anyValue(value) { values.append(OTLP.KeyValue(key: key, value: converted)) }
        }
        // Deterministic order for collectors and tests alike.
        return values.sorted { $0.key < $1.key }
    }

    static func keyValue(_ key: String, _ value: OTLP.AnyValue.Value) -> OTLP.KeyValue {
        OTLP.KeyValue(key: key, value: OTLP.AnyValue(value: value))
    }

    private static func anyValue(_ attribute: SpanAttribute) -> OTLP.AnyValue? {
        func array(_ values: [OTLP.AnyValue.Value]) -> OTLP.AnyValue {
            OTLP.AnyValue(value: .arrayValue(OTLP.ArrayValue(values: values.map { OTLP.AnyValue(value: $0) })))
        }
        switch attribute {
        case .int32(let value): return OTLP.AnyValue(value: .intValue(Int64(value)))
        case .int64(let value): return OTLP.AnyValue(value: .intValue(value))
        case .double(let value): return OTLP.AnyValue(value: .doubleValue(value))
        case .bool(let value): return OTLP.AnyValue(value: .boolValue(value))
        case .string(let value): return OTLP.AnyValue(value: .stringValue(value))
        case .stringConvertible(let value): return OTLP.AnyValue(value: .stringValue(value.description))
        case .int32Array(let values): return array(values.map { .intValue(Int64($0)) })
        case .int64Array(let values): return array(values.map { .intValue($0) })
        case .doubleArray(let values): return array(values.map { .doubleValue($0) })
        case .boolArray(let values): return array(values.map { .boolValue($0) })
        case .stringArray(let values): return array(values.map { .stringValue($0) })
        case .stringConvertibleArray(let values): return array(values.map { .stringValue($0.description) })
        default: return nil
        }
    }
}
