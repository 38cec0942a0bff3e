#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif
import RPCCore

extension GatewayTransport {
    /// gRPC-Web over `URLSession` with `sessionConfiguration`: what an iOS app uses. Plain
    /// `http://` for `.plaintext` (HTTP/1.1 on Linux's libcurl), `https://` trusting the system's
    /// roots for `.tls`; a private CA (`.tlsTrustingRoots…`) is for the HTTP/2 transport.
    /// Bidirectional calls fail with UNIMPLEMENTED; video call signaling (`client.calls`) uses
    /// its half-duplex form (Attach and Send) here.
    public static func grpcWeb(sessionConfiguration: URLSessionConfiguration = .default) -> GatewayTransport {
        let box = SessionConfigurationBox(value: sessionConfiguration)
        return GatewayTransport { configuration in
            let scheme: String
            switch configuration.security {
            case .plaintext: scheme = "http"
            case .tls: scheme = "https"
            case .tlsTrustingRoots, .tlsTrustingRootsPEM:
                throw RPCError(code: .failedPrecondition,
                               message: "the gRPC-Web transport trusts the system's root certificates only; use .tls, or the HTTP/2 transport for a private CA")
            }
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            return GRPCWebConnection(baseURL: "\(scheme)://\(host):\(configuration.port)", sessionConfiguration: box.value)
        }
    }
}

/// Carries the app's session configuration into the transport's factory.
private struct SessionConfigurationBox: @unchecked Sendable {
    // @unchecked Sendable: the configuration is only read, by URLSession's initializer, which
    // copies it.
    let value: URLSessionConfiguration
}
