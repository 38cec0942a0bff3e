/// Per-call settings of a client call.
package struct CallOptions: Sendable {
    /// The call fails with DEADLINE_EXCEEDED after this long; sent as `grpc-timeout`.
    package var timeout: Duration?
    package var metadata: Metadata
    /// Compress request messages with gzip.
    package var compressRequests: Bool

    package init(timeout: Duration? = nil, metadata: Metadata = Metadata(), compressRequests: Bool = false) {
        self.timeout = timeout
        self.metadata = metadata
        self.compressRequests = compressRequests
    }
}

/// A unary or client-streaming call's result.
package struct ClientResponse<Message: Sendable>: Sendable {
    package var message: Message
    package var initialMetadata: Metadata
    package var trailingMetadata: Metadata
}
