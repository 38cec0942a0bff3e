package import Instrumentation

/// Reads a tracer's propagation fields from gRPC metadata. `traceparent` sent more than once
/// reads as absent (W3C Trace Context: start a new trace); `tracestate` fields are joined.
package struct MetadataExtractor: Extractor {
    package init() {}

    package func extract(key: String, from carrier: Metadata) -> String? {
        var values: [String] = []
        for element in carrier where element.key == key {
            if case .string(let value) = element.value { values.append(value) }
        }
        switch values.count {
        case 0: return nil
        case 1: return values[0]
        default: return key == TraceParent.headerName ? nil : values.joined(separator: ",")
        }
    }
}
