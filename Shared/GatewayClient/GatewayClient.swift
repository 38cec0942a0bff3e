import Contracts
import CryptoCore
import HTTP2
public import RPC

/// The one object a mobile app embeds to talk to Rendezvous: typed per-service APIs
/// (`client.identity.signInWithEmail(…)`, `client.devices.registerPushToken(…)`; each service
/// is one `<Service>API.swift` with its table of methods), the signed-in session kept in a
/// `TokenStore` and refreshed as needed, deadlines on every call, and retries for idempotent calls.
///
/// ```swift
/// let client = try GatewayClient(configuration: GatewayConfiguration(host: "api.example.com", port: 443, app: "momento"),
///                                tokenStore: FileTokenStore(path: sessionFile))
/// let account = try await client.identity.signInAnonymously()
/// let sessions = try await client.identity.listSessions()
/// ```
///
/// One HTTP/2 connection carries every call; it is opened on first use and reopened after it
/// drops. Safe to share between tasks.
public final class GatewayClient: Sendable {
    public let configuration: GatewayConfiguration
    let runner: CallRunner

    /// Creates the client; no connection is made until the first call. Throws when the TLS
    /// settings cannot be loaded (an unreadable or malformed root certificate file).
    public init(configuration: GatewayConfiguration, tokenStore: any TokenStore = InMemoryTokenStore()) throws {
        self.configuration = configuration
        let rpc = RPCClient(host: configuration.host, port: configuration.port,
                            security: try Self.transportSecurity(configuration.security))
        let refreshDeadline = configuration.defaultDeadline
        let sessions = SessionKeeper(store: tokenStore, refreshMargin: configuration.refreshMargin) { refreshToken in
            try await IdentityClient(client: rpc).refreshSession(.init(refreshToken: refreshToken),
                                                                 options: CallOptions(timeout: refreshDeadline))
        }
        self.runner = CallRunner(rpc: rpc, sessions: sessions, configuration: configuration)
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
        runner.rpc.close()
    }

    private static func transportSecurity(_ security: GatewayConfiguration.TransportSecurity) throws -> HTTP2.TransportSecurity {
        switch security {
        case .plaintext: .plaintext
        case .tls: .tls(try TLSContext.makeClient(trustRootsPEMFile: nil))
        case .tlsTrustingRoots(let pemFile): .tls(try TLSContext.makeClient(trustRootsPEMFile: pemFile))
        case .tlsTrustingRootsPEM(let pem): .tls(try TLSContext.makeClient(trustRootsPEM: pem))
        }
    }
}
