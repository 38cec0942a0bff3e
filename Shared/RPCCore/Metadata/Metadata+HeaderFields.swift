extension Metadata {
    /// The custom metadata among received header fields (lowercase names); `-bin` values are
    /// base64-decoded (padded or not), and one that does not decode is dropped.
    package init(headerFields: some Sequence<(name: String, value: String)>) {
        self.init()
        for field in headerFields { addReceived(field.value, forKey: field.name) }
    }

    /// Adds one received header field unless its name is reserved: a `-bin` value
    /// base64-decoded (dropped when it does not decode), any other as text.
    package mutating func addReceived(_ value: String, forKey name: String) {
        guard !Metadata.isReserved(name) else { return }
        if name.hasSuffix("-bin") {
            if let bytes = Base64.decode(value) { addBinary(bytes, forKey: name) }
        } else {
            addString(value, forKey: name)
        }
    }

    /// This metadata as header fields, skipping reserved names; `-bin` values in base64.
    package var headerFields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(count)
        forEachHeaderField { name, value, _ in fields.append((name, value)) }
        return fields
    }

    /// Calls `body` with each field this metadata sends, in order, skipping reserved names;
    /// a binary value comes base64-encoded, with `isBinary` set.
    package func forEachHeaderField(_ body: (_ name: String, _ value: String, _ isBinary: Bool) -> Void) {
        for element in self where !Metadata.isReserved(element.key) {
            switch element.value {
            case .string(let value): body(element.key, value, false)
            case .binary(let bytes): body(element.key, Base64.encode(bytes), true)
            }
        }
    }
}
