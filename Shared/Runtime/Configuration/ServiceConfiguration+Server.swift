import CryptoCore
package import RPC

extension ServiceConfiguration {
    /// The gRPC server's settings; loads the TLS certificate and key when configured.
    package func makeServerConfiguration() throws(ConfigurationError) -> RPCServerConfiguration {
        var server = RPCServerConfiguration()
        server.host = host
        server.port = port
        server.loopCount = loopCount
        server.cors = CORSPolicy(allowedOrigins: corsOrigins)
        if let tls {
            do {
                let context = try TLSContext.makeServer(certificateChainPEMFile: tls.certificateChainFile,
                                                        privateKeyPEMFile: tls.privateKeyFile)
                server.security = .tls(context)
            } catch {
                throw ConfigurationError(
                    variable: "RV_TLS_CERT_FILE",
                    message: "could not load the certificate chain and key (RV_TLS_KEY_FILE): \(error)")
            }
        }
        return server
    }
}
