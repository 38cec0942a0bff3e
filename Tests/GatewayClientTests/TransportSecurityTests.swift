import CryptoCore
import GatewayClient
import GatewayClientHTTP2
import HTTP2
import RPC
import Testing

/// TLS on and off: the client verifies the server's certificate against the roots it is given.
@Suite struct TransportSecurityTests {
    @Test func tls_trustingTheServersRoot_calls_andAnUntrustedServer_isUnavailable() async throws {
        let (certificate, key) = try TestCertificates.makeSelfSigned(commonName: "localhost")
        let (otherCertificate, _) = try TestCertificates.makeSelfSigned(commonName: "localhost")
        let service = ScriptedIdentityService()
        try await withScriptedServer(service, configureServer: {
            // Safe to force: the certificate and key were just made together.
            $0.security = .tls(try! TLSContext.makeServer(certificateChainPEM: certificate, privateKeyPEM: key))
        }, configure: {
            $0.host = "localhost"
            $0.security = .tlsTrustingRootsPEM(certificate)
        }) { client in
            let account = try await client.identity.signInAnonymously()
            #expect(account.id == ScriptedIdentityService.account.id)

            var distrusting = client.configuration
            distrusting.security = .tlsTrustingRootsPEM(otherCertificate)
            let other = try GatewayClient(configuration: distrusting)
            defer { other.close() }
            let error = await gatewayError { _ = try await other.identity.signInAnonymously() }
            #expect(error?.code == .unavailable)
        }
        #expect(service.count("SignInAnonymously") == 1)
    }

    @Test func tls_withAnUnreadableRootFile_failsAtCreation() {
        let configuration = GatewayConfiguration(host: "localhost", port: 1, security: .tlsTrustingRoots(pemFile: "/nonexistent/roots.pem"),
                                                 app: "swivo")
        #expect(throws: (any Error).self) { _ = try GatewayClient(configuration: configuration) }
    }
}
