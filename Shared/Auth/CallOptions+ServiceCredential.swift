package import RPC

extension CallOptions {
    /// Options carrying `authorization: Service <name>:<secret>` for an internal method.
    package static func service(_ credential: ServiceCredential, timeout: Duration? = nil) -> CallOptions {
        var metadata = Metadata()
        metadata.addString(credential.authorizationValue, forKey: "authorization")
        return CallOptions(timeout: timeout, metadata: metadata)
    }
}
