#if canImport(Glibc)
import Glibc
#endif
package import Logging

/// Everything a service executable reads from its environment, typed and validated.
///
/// | variable | default |
/// |---|---|
/// | `RV_<SERVICE>_HOST` | `127.0.0.1` |
/// | `RV_<SERVICE>_PORT` | the service's port (identity 7101 … media 7105) |
/// | `RV_<SERVICE>_ADMIN_PORT` | gRPC port + 100 (0 when the gRPC port is 0) |
/// | `RV_LOG_LEVEL` | `info` (trace, debug, info, notice, warning, error, critical) |
/// | `RV_LOG_FORMAT` | `text` (`json` for one JSON object per line) |
/// | `RV_SHUTDOWN_GRACE_SECONDS` | 10 |
/// | `RV_LOOP_COUNT` | one event loop per core |
/// | `RV_TLS_CERT_FILE`, `RV_TLS_KEY_FILE` | unset: plaintext h2c; both set: TLS |
/// | `RV_CORS_ORIGINS` | unset: no CORS (comma-separated origins, or `*`, that may call gRPC-Web from a browser) |
/// | `RV_PG_URL_<SERVICE>` | unset |
/// | `RV_EVENT_LAG_BOUND_SECONDS` | 60: `/readyz` fails while an event consumer is further behind (0: never) |
/// | `RV_OTLP_ENDPOINT` | unset: no spans exported (`host:port` of an OTLP/gRPC collector, plaintext) |
/// | `RV_TRACE_SAMPLE_RATIO` | 1 (the share of new traces recorded, 0 to 1) |
///
/// `--host ADDR`, `--port N` and `--admin-port N` on the command line override the environment.
package struct ServiceConfiguration: Sendable, Equatable {
    /// The service's name, lowercase, e.g. `identity`.
    package var name: String
    /// The address both listeners bind: an IPv4 dotted quad, `0.0.0.0` or `localhost`.
    package var host: String
    /// The gRPC port; 0 picks a free one.
    package var port: Int
    /// The HTTP/1.1 admin port (metrics, health); 0 picks a free one.
    package var adminPort: Int
    /// The lowest level logged.
    package var logLevel: Logger.Level
    /// JSON lines or text.
    package var logFormat: LogFormat
    /// How long in-flight calls may run after SIGTERM before their connections are closed.
    package var shutdownGracePeriod: Duration
    /// Event loops for the gRPC server; nil for one per core.
    package var loopCount: Int?
    /// Certificate chain and key in PEM files; nil serves plaintext h2c.
    package var tls: TLSFiles?
    /// Browser origins allowed to call gRPC-Web (`https://app.example.com`, or `*`); empty for none.
    package var corsOrigins: [String]
    /// The service's Postgres connection string, passed through as written.
    package var postgresURL: String?
    /// `/readyz` fails while one of the service's event consumers is further behind its
    /// producer than this (`ConsumerLag`); nil never fails it for lag.
    package var eventLagBound: Duration?
    /// The OTLP/gRPC collector spans are exported to; nil exports none.
    package var otlpEndpoint: Endpoint?
    /// The share of new traces that are recorded (and exported), 0...1.
    package var traceSampleRatio: Double

    /// Another process's address.
    package struct Endpoint: Sendable, Equatable {
        package var host: String
        package var port: Int

        package init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// PEM files for the server's TLS identity.
    package struct TLSFiles: Sendable, Equatable {
        /// `RV_TLS_CERT_FILE`: the certificate, then its intermediates.
        package var certificateChainFile: String
        /// `RV_TLS_KEY_FILE`: the private key.
        package var privateKeyFile: String

        /// Both files, as configured.
        package init(certificateChainFile: String, privateKeyFile: String) {
            self.certificateChainFile = certificateChainFile
            self.privateKeyFile = privateKeyFile
        }
    }

    /// The local defaults for a service.
    package init(name: String, port: Int) {
        self.name = name
        self.host = "127.0.0.1"
        self.port = port
        self.adminPort = port == 0 ? 0 : port + 100
        self.logLevel = .info
        self.logFormat = .text
        self.shutdownGracePeriod = .seconds(10)
        self.loopCount = nil
        self.tls = nil
        self.corsOrigins = []
        self.postgresURL = nil
        self.eventLagBound = .seconds(60)
        self.otlpEndpoint = nil
        self.traceSampleRatio = 1
    }

    /// The variable holding a per-service setting, e.g. `RV_IDENTITY_PORT` for `PORT`.
    package static func variable(_ suffix: String, service name: String) -> String {
        "RV_\(environmentName(name))_\(suffix)"
    }

    /// `RV_PG_URL_<SERVICE>`.
    package static func postgresVariable(service name: String) -> String {
        "RV_PG_URL_\(environmentName(name))"
    }

    private static func environmentName(_ name: String) -> String {
        String(name.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}
