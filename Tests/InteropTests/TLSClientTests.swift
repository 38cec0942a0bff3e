import Contracts
import CryptoCore
import HTTP2
import InteropServer
import RPC
import Testing

/// Our client over TLS (ALPN h2, certificate checked against a trust root) to our server.
@Suite struct TLSClientTests {
    @Test func rpcClient_overTLS_verifiesTheServerAndCalls() async throws {
        let (certificate, key) = try TestCertificates.makeSelfSigned(commonName: "localhost")
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        configuration.security = .tls(try TLSContext.makeServer(certificateChainPEM: certificate, privateKeyPEM: key))
        let server = try RPCServer(configuration: configuration, services: [TestService()])
        let port = try server.start()

        let trusting = RPCClient(host: "localhost", port: port,
                                 security: .tls(try TLSContext.makeClient(trustRootsPEM: certificate)))
        var request = GRPCTesting.SimpleRequest()
        request.responseSize = 271_828
        let response = try await TestServiceClient(client: trusting).unaryCall(request)
        #expect(response.payload?.body.count == 271_828)
        trusting.close()

        // A client that does not trust the certificate never gets a call through.
        let (otherCertificate, _) = try TestCertificates.makeSelfSigned(commonName: "localhost")
        let distrusting = RPCClient(host: "localhost", port: port,
                                    security: .tls(try TLSContext.makeClient(trustRootsPEM: otherCertificate)))
        await #expect {
            _ = try await TestServiceClient(client: distrusting).emptyCall()
        } throws: { error in
            (error as? RPCError)?.code == .unavailable
        }
        distrusting.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
    }
}
