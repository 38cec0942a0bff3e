import ContractTypes
public import RPCCore

/// The one object a mobile app embeds to talk to Rendezvous: typed per-service APIs
/// (`client.identity.signInWithEmail(…)`, `client.devices.registerPushToken(…)`; each service
/// is one `<Service>API.swift` with its table of methods), the signed-in session kept in a
/// `TokenStore` and refreshed as needed, deadlines on every call, and retries for idempotent calls.
///
/// ```swift
/// let client = try GatewayClient(configuration: GatewayConfiguration(host: "api.example.com", port: 443, app: "momento"),
///                                transport: .grpcWeb(), tokenStore: FileTokenStore(path: sessionFile))
/// let account = try await client.identity.signInAnonymously()
/// let sessions = try await client.identity.listSessions()
/// ```
///
/// The transport (``GatewayTransport``) opens its connection on first use and again after it
/// drops. Safe to share between tasks.
public final class GatewayClient: Sendable {
    public let configuration: GatewayConfiguration
    let runner: CallRunner

    /// Creates the client over `transport`; no connection is made until the first call. Throws
    /// when the transport cannot be set up for `configuration` (an unreadable or malformed root
    /// certificate file, a security setting the transport does not support).
    public init(configuration: GatewayConfiguration, transport: GatewayTransport,
                tokenStore: any TokenStore = InMemoryTokenStore()) throws {
        self.configuration = configuration
        let connection = TracedGatewayConnection(base: try transport.makeConnection(configuration))
        let refreshDeadline = configuration.defaultDeadline
        let sessions = SessionKeeper(store: tokenStore, refreshMargin: configuration.refreshMargin) { refreshToken in
            try await IdentityClient(client: connection).refreshSession(.init(refreshToken: refreshToken),
                                                                        options: CallOptions(timeout: refreshDeadline))
        }
        self.runner = CallRunner(transport: connection, sessions: sessions, configuration: configuration)
    }

    /// The signed-in session, or nil when signed out.
    public func currentSession() throws(GatewayError) -> StoredSession? {
        do {
            return try runner.sessions.current()
        } catch {
            throw GatewayError.gateway(error)
        }
    }

    /// Closes the connection; calls after this fail with UNAVAILABLE. The session stays stored.
    public func close() {
        runner.transport.close()
    }
}
