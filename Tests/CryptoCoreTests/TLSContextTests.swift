import Foundation
import Testing
@testable import CryptoCore

@Suite struct TLSContextTests {
    @Test func makeServer_fromPEMFiles_handshakesWithClientFromRootFile() throws {
        let identity = try TestCertificates.makeSelfSigned()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificateFile = directory.appendingPathComponent("cert.pem").path
        let keyFile = directory.appendingPathComponent("key.pem").path
        try Data(identity.certificatePEM).write(to: URL(fileURLWithPath: certificateFile))
        try Data(identity.privateKeyPEM).write(to: URL(fileURLWithPath: keyFile))

        let server = try TLSContext.makeServer(certificateChainPEMFile: certificateFile, privateKeyPEMFile: keyFile)
        let client = try TLSContext.makeClient(trustRootsPEMFile: certificateFile)
        let pair = try TLSPair(server: server, client: client)
        #expect(pair.handshake().client.isDone)
        #expect(pair.client.negotiatedALPN == "h2")
    }

    @Test func makeServer_missingFile_throwsWithOpenSSLText() {
        #expect {
            try TLSContext.makeServer(certificateChainPEMFile: "/nonexistent/cert.pem", privateKeyPEMFile: "/nonexistent/key.pem")
        } throws: { error in
            guard let error = error as? TLSError else { return false }
            return error.code == .configuration && error.description.contains("No such file")
        }
    }

    @Test func makeServer_keyOfAnotherCertificate_throws() throws {
        let first = try TestCertificates.makeSelfSigned()
        let second = try TestCertificates.makeSelfSigned()
        #expect(throws: TLSError.self) {
            try TLSContext.makeServer(certificateChainPEM: first.certificatePEM, privateKeyPEM: second.privateKeyPEM)
        }
    }

    @Test func makeServer_garbagePEM_throwsWithoutEchoingInput() throws {
        let identity = try TestCertificates.makeSelfSigned()
        let secret = Array("-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END PRIVATE KEY-----\n".utf8)
        #expect {
            try TLSContext.makeServer(certificateChainPEM: identity.certificatePEM, privateKeyPEM: secret)
        } throws: { error in
            "\(error)".contains("PEM_read_bio_PrivateKey") && !"\(error)".contains("c2VjcmV0")
        }
        #expect(throws: TLSError.self) {
            try TLSContext.makeServer(certificateChainPEM: Array("not a certificate".utf8), privateKeyPEM: identity.privateKeyPEM)
        }
    }

    @Test func makeServer_invalidALPNName_throws() throws {
        let identity = try TestCertificates.makeSelfSigned()
        #expect(throws: TLSError.self) {
            try TLSContext.makeServer(certificateChainPEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM, alpn: [""])
        }
    }

    @Test func makeSelfSigned_outputIsPEM() throws {
        let identity = try TestCertificates.makeSelfSigned(commonName: "rendezvous.test")
        #expect(String(decoding: identity.certificatePEM, as: UTF8.self).hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(String(decoding: identity.privateKeyPEM, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(throws: TLSError.self) { try TestCertificates.makeSelfSigned(commonName: "a,IP:1.2.3.4") }
    }
}
