extension RPCClient: ClientTransport {
    /// Opens an HTTP/2 stream for the call; every call shape works over it.
    package func openStream(path: String, kind: CallKind, options: CallOptions) async throws -> any ClientStream {
        try await makeCall(path: path, options: options)
    }
}
