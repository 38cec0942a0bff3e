import CryptoCore
public import GatewayClient
import HTTP2
import RPC

extension GatewayTransport {
    /// gRPC over HTTP/2 (h2c or TLS with ALPN h2) through nghttp2 and OpenSSL: one multiplexed
    /// connection for every call, all call shapes including bidirectional streams.
    public static var http2: GatewayTransport {
        GatewayTransport { configuration in
            HTTP2GatewayConnection(rpc: RPCClient(host: configuration.host, port: configuration.port,
                                                  security: try transportSecurity(configuration.security)))
        }
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
