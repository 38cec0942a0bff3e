public import GatewayClient

extension GatewayClient {
    /// Creates the client over HTTP/2 (`GatewayTransport.http2`); no connection is made until
    /// the first call. Throws when the TLS settings cannot be loaded (an unreadable or malformed
    /// root certificate file).
    public convenience init(configuration: GatewayConfiguration, tokenStore: any TokenStore = InMemoryTokenStore()) throws {
        try self.init(configuration: configuration, transport: .http2, tokenStore: tokenStore)
    }
}
