package import HTTP2

extension Metadata {
    /// The custom metadata among received headers; `-bin` values are base64-decoded (padded or
    /// not), and one that does not decode is dropped.
    package init(headers: [HTTP2Header]) {
        // A plain loop rather than `init(headerFields:)` over a lazy map: that generic is not
        // specialized across modules, and its iterator cost more than the fields (on every call).
        self.init()
        for header in headers { addReceived(header.value, forKey: header.name) }
    }

    /// Appends this metadata as header fields, skipping reserved names. Binary values and
    /// request ids differ on every call, so they are kept out of the HPACK table
    /// (`HTTP2Header.isIndexed`); the rest (a bearer token, say) is indexed and repeats cheaply.
    package func append(to headers: inout [HTTP2Header]) {
        // Room for every field at once, and no intermediate array (`headerFields`): this runs
        // twice on every call (response headers and trailers).
        headers.reserveCapacity(headers.count + count)
        forEachHeaderField { name, value, isBinary in
            let perCall = isBinary || name == Self.requestIDKey || name.hasSuffix("-bin")
            headers.append(HTTP2Header(name, value, indexed: !perCall))
        }
    }

    /// The request id's key (Runtime's `RequestID`), whose value is new on every call.
    package static let requestIDKey = "x-request-id"
}
