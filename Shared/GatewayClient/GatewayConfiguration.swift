/// Where the gateway client connects and how it behaves: one value, set once when the app starts.
public struct GatewayConfiguration: Sendable {
    /// How the connection is secured.
    public enum TransportSecurity: Sendable, Equatable {
        /// Plain HTTP/2 (h2c): local development and tests only.
        case plaintext
        /// TLS trusting the system's root certificates.
        case tls
        /// TLS trusting only the root certificates in this PEM file (a private CA).
        case tlsTrustingRoots(pemFile: String)
        /// TLS trusting only the root certificates in these PEM bytes.
        case tlsTrustingRootsPEM([UInt8])
    }

    /// The gateway's (or a service's) host name or address.
    public var host: String
    public var port: Int
    public var security: TransportSecurity
    /// The app id every sign-in names (`elite`, `firstdate`, `swivo`, `unseen`, `momento`).
    public var app: String
    /// Shown in the user's session list for sessions this client starts.
    public var deviceName: String
    /// How long one attempt of a call may take (sent as `grpc-timeout`); each call can
    /// override it with its `deadline` argument.
    public var defaultDeadline: Duration
    /// Retries for idempotent calls; never applied to the others.
    public var retryPolicy: RetryPolicy
    /// An access token that expires within this margin is refreshed before the call, so the
    /// call does not set off with a token the server will already have seen expire.
    public var refreshMargin: Duration
    /// Told of every unary call when it ends: its `Service/Method`, how long it took (retries
    /// and a refresh included) and its error when it failed; for an app's telemetry or a load test.
    public var callObserver: (@Sendable (_ method: String, _ duration: Duration, _ error: GatewayError?) -> Void)?

    public init(host: String, port: Int, security: TransportSecurity = .tls, app: String, deviceName: String = "",
                defaultDeadline: Duration = .seconds(10), retryPolicy: RetryPolicy = RetryPolicy(),
                refreshMargin: Duration = .seconds(30)) {
        self.host = host
        self.port = port
        self.security = security
        self.app = app
        self.deviceName = deviceName
        self.defaultDeadline = defaultDeadline
        self.retryPolicy = retryPolicy
        self.refreshMargin = refreshMargin
    }
}
