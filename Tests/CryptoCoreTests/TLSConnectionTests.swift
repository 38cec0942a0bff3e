import Testing
@testable import CryptoCore

@Suite struct TLSConnectionTests {
    let certificatePEM: [UInt8]
    let serverContext: TLSContext

    init() throws {
        let identity = try TestCertificates.makeSelfSigned()
        self.certificatePEM = identity.certificatePEM
        self.serverContext = try TLSContext.makeServer(
            certificateChainPEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)
    }

    private func trustingClient(alpn: [String] = ["h2"]) throws -> TLSContext {
        try TLSContext.makeClient(trustRootsPEM: self.certificatePEM, alpn: alpn)
    }

    @Test(arguments: ["localhost", "127.0.0.1"])
    func handshake_trustedServer_negotiatesH2(serverName: String) throws {
        let pair = try TLSPair(server: self.serverContext, client: try self.trustingClient(), serverName: serverName)
        let outcome = pair.handshake()
        #expect(outcome.server.isDone, "server: \(outcome.server)")
        #expect(outcome.client.isDone, "client: \(outcome.client)")
        #expect(pair.server.negotiatedALPN == "h2")
        #expect(pair.client.negotiatedALPN == "h2")
        #expect(try pair.server.handshake() == .bytes(0), "handshake() stays done")
    }

    @Test func readWrite_afterHandshake_bytesFlowBothWays() throws {
        let pair = try TLSPair(server: self.serverContext, client: try self.trustingClient())
        #expect(pair.handshake().client.isDone)

        // Larger than the socket buffer, so writes come back partial or .wantWrite.
        let request = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(try TLSPair.transfer(request, from: pair.client, to: pair.server) == request)
        let response = Array("pong".utf8)
        #expect(try TLSPair.transfer(response, from: pair.server, to: pair.client) == response)
    }

    @Test func read_afterPeerShutdown_returnsClosed() throws {
        let pair = try TLSPair(server: self.serverContext, client: try self.trustingClient())
        #expect(pair.handshake().client.isDone)
        pair.client.shutdown()
        pair.client.shutdown()  // Idempotent.
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(try buffer.withUnsafeMutableBytes { try pair.server.read(into: $0) } == .closed)
    }

    @Test func read_afterTCPCloseWithoutCloseNotify_returnsClosed() throws {
        let pair = try TLSPair(server: self.serverContext, client: try self.trustingClient())
        #expect(pair.handshake().client.isDone)
        pair.sockets.closeClientAbruptly()
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(try buffer.withUnsafeMutableBytes { try pair.server.read(into: $0) } == .closed)
    }

    @Test func read_beforeDataArrives_returnsWantRead() throws {
        let pair = try TLSPair(server: self.serverContext, client: try self.trustingClient())
        #expect(pair.handshake().client.isDone)
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(try buffer.withUnsafeMutableBytes { try pair.server.read(into: $0) } == .wantRead)
    }

    @Test func handshake_clientOffersOnlyHTTP1_isRefused() throws {
        let pair = try TLSPair(server: self.serverContext, client: try self.trustingClient(alpn: ["http/1.1"]))
        let outcome = pair.handshake()
        #expect(outcome.server.error?.code == .noApplicationProtocol, "server: \(outcome.server)")
        #expect(outcome.client.error?.code == .noApplicationProtocol, "client: \(outcome.client)")
    }

    @Test func handshake_clientOffersHTTP1ThenH2_picksH2() throws {
        let pair = try TLSPair(server: self.serverContext, client: try self.trustingClient(alpn: ["http/1.1", "h2"]))
        #expect(pair.handshake().client.isDone)
        #expect(pair.client.negotiatedALPN == "h2")
    }

    @Test func handshake_clientWithoutALPN_succeedsWithNoProtocol() throws {
        let pair = try TLSPair(server: self.serverContext, client: try self.trustingClient(alpn: []))
        #expect(pair.handshake().server.isDone)
        #expect(pair.server.negotiatedALPN == nil)
    }

    @Test func handshake_clientTrustsAnotherRoot_failsVerification() throws {
        let stranger = try TestCertificates.makeSelfSigned()
        let client = try TLSContext.makeClient(trustRootsPEM: stranger.certificatePEM)
        let pair = try TLSPair(server: self.serverContext, client: client)
        let outcome = pair.handshake()
        let error = try #require(outcome.client.error, "client: \(outcome.client)")
        #expect(error.code == .certificateVerificationFailed)
        #expect(error.description.contains("self-signed certificate"), "\(error)")
        #expect(!outcome.server.isDone)
    }

    @Test func handshake_wrongServerName_failsVerification() throws {
        let pair = try TLSPair(server: self.serverContext, client: try self.trustingClient(), serverName: "example.com")
        let outcome = pair.handshake()
        #expect(outcome.client.error?.code == .certificateVerificationFailed, "client: \(outcome.client)")
    }

    @Test func handshake_nonVerifyingClient_acceptsUntrustedServer() throws {
        let client = try TLSContext.makeClient(trustRootsPEMFile: nil, verifyPeer: false)
        let pair = try TLSPair(server: self.serverContext, client: client, serverName: nil)
        #expect(pair.handshake().client.isDone)
    }

    @Test func init_verifyingClientWithoutServerName_throws() throws {
        let sockets = try SocketPair()
        #expect(throws: TLSError.self) {
            try TLSConnection(context: try self.trustingClient(), fileDescriptor: sockets.client, serverName: nil)
        }
    }

    static let garbage: [(String, [UInt8])] = [
        ("HTTP/1.1 request", Array("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)),
        ("HTTP/2 preface", Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)),
        ("zeros", [UInt8](repeating: 0, count: 512)),
        ("handshake record with bogus body", [0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0xFF, 0xFF, 0xFF, 0xFF]),
        ("oversized record header", [0x16, 0x03, 0x01, 0xFF, 0xFF] + [UInt8](repeating: 0x41, count: 64)),
    ]

    @Test(arguments: garbage)
    func handshake_garbageInsteadOfClientHello_throws(_ name: String, _ bytes: [UInt8]) throws {
        let sockets = try SocketPair()
        let server = try TLSConnection(context: self.serverContext, fileDescriptor: sockets.server, serverName: nil)
        try sockets.writeRaw(bytes, to: sockets.client)
        sockets.closeClientAbruptly()
        #expect {
            while try server.handshake() != .closed {}
        } throws: { error in
            (error as? TLSError)?.code == .handshakeFailed
        }
        // A failed session refuses further use instead of touching OpenSSL again.
        #expect(throws: TLSError.self) { try server.handshake() }
        server.shutdown()
    }

    @Test func handshake_peerClosesBeforeClientHello_returnsClosed() throws {
        let sockets = try SocketPair()
        let server = try TLSConnection(context: self.serverContext, fileDescriptor: sockets.server, serverName: nil)
        sockets.closeClientAbruptly()
        #expect(try server.handshake() == .closed)
    }
}
