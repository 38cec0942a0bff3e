extension CallOptions {
    /// Options carrying `authorization: Bearer <accessToken>`.
    package static func bearer(_ accessToken: String, timeout: Duration? = nil) -> CallOptions {
        var metadata = Metadata()
        metadata.addString("Bearer \(accessToken)", forKey: "authorization")
        return CallOptions(timeout: timeout, metadata: metadata)
    }
}
