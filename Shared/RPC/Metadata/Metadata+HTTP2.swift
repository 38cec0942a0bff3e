package import HTTP2

extension Metadata {
    /// The custom metadata among received headers; `-bin` values are base64-decoded (padded or
    /// not), and one that does not decode is dropped.
    package init(headers: [HTTP2Header]) {
        self.init(headerFields: headers.lazy.map { (name: $0.name, value: $0.value) })
    }

    /// Appends this metadata as header fields, skipping reserved names.
    package func append(to headers: inout [HTTP2Header]) {
        for field in headerFields { headers.append(HTTP2Header(field.name, field.value)) }
    }
}
