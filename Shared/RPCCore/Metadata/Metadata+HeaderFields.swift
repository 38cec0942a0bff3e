extension Metadata {
    /// The custom metadata among received header fields (lowercase names); `-bin` values are
    /// base64-decoded (padded or not), and one that does not decode is dropped.
    package init(headerFields: some Sequence<(name: String, value: String)>) {
        self.init()
        for field in headerFields where !Metadata.isReserved(field.name) {
            if field.name.hasSuffix("-bin") {
                if let bytes = Base64.decode(field.value) { addBinary(bytes, forKey: field.name) }
            } else {
                addString(field.value, forKey: field.name)
            }
        }
    }

    /// This metadata as header fields, skipping reserved names; `-bin` values in base64.
    package var headerFields: [(name: String, value: String)] {
        compactMap { element in
            guard !Metadata.isReserved(element.key) else { return nil }
            switch element.value {
            case .string(let value): return (element.key, value)
            case .binary(let bytes): return (element.key, Base64.encode(bytes))
            }
        }
    }
}
