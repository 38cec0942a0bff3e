extension Metadata {
    /// The call's valid `traceparent`, or nil when it is absent, malformed or sent more than
    /// once (W3C Trace Context: such a request starts a new trace).
    package var traceParent: TraceParent? {
        var found: String?
        for element in self where element.key == TraceParent.headerName {
            guard found == nil, case .string(let value) = element.value else { return nil }
            found = value
        }
        return found.flatMap(TraceParent.init(header:))
    }

    /// The call's `tracestate`, from all its fields; nil when absent or invalid.
    package var traceState: TraceState? {
        var values: [String] = []
        for element in self where element.key == TraceState.headerName {
            if case .string(let value) = element.value { values.append(value) }
        }
        return values.isEmpty ? nil : TraceState(headers: values)
    }

    /// Replaces any trace context with `parent` (and `state`, when given).
    package mutating func setTraceContext(_ parent: TraceParent, state: TraceState?) {
        removeAll(forKey: TraceParent.headerName)
        removeAll(forKey: TraceState.headerName)
        addString(parent.header, forKey: TraceParent.headerName)
        if let state { addString(state.header, forKey: TraceState.headerName) }
    }
}
