package import HTTP2

extension Metadata {
    /// The custom metadata among received headers; `-bin` values are base64-decoded (padded or
    /// not), and one that does not decode is dropped.
    package init(headers: [HTTP2Header]) {
        self.init()
        for header in headers where !Metadata.isReserved(header.name) {
            if header.name.hasSuffix("-bin") {
                if let bytes = Base64.decode(header.value) { addBinary(bytes, forKey: header.name) }
            } else {
                addString(header.value, forKey: header.name)
            }
        }
    }

    /// Appends this metadata as header fields, skipping reserved names.
    package func append(to headers: inout [HTTP2Header]) {
        for element in self where !Metadata.isReserved(element.key) {
            switch element.value {
            case .string(let value): headers.append(HTTP2Header(element.key, value))
            case .binary(let bytes): headers.append(HTTP2Header(element.key, Base64.encode(bytes)))
            }
        }
    }
}
