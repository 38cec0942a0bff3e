import Foundation
import Glibc
import Testing
@testable import CryptoCore

/// Our server TLS against the real `openssl s_client`, driven by poll(2) the way an event loop
/// would: wait for POLLIN after `.wantRead`, POLLOUT after `.wantWrite`, then repeat the call.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
struct OpenSSLCommandLineTests {
    @Test(.timeLimit(.minutes(1)))
    func sClient_alpnH2_verifiesAndExchangesBytes() throws {
        let identity = try TestCertificates.makeSelfSigned()
        let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("s_client-ca-\(getpid()).pem")
        try Data(identity.certificatePEM).write(to: caFile)
        defer { try? FileManager.default.removeItem(at: caFile) }
        let context = try TLSContext.makeServer(
            certificateChainPEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)

        let listener = try Self.listenOnLoopback()
        defer { close(listener.fd) }

        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        client.arguments = [
            "s_client", "-connect", "127.0.0.1:\(listener.port)", "-alpn", "h2",
            "-CAfile", caFile.path, "-verify_return_error", "-verify_hostname", "localhost", "-ign_eof",
        ]
        let input = Pipe()
        let output = Pipe()
        client.standardInput = input
        client.standardOutput = output
        client.standardError = output
        try client.run()
        input.fileHandleForWriting.write(Data("ping\n".utf8))
        try input.fileHandleForWriting.close()

        try Self.wait(for: Int16(POLLIN), on: listener.fd)
        let fd = accept(listener.fd, nil, nil)
        #expect(fd >= 0)
        defer { close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let connection = try TLSConnection(context: context, fileDescriptor: fd, serverName: nil)

        try Self.drive(fd) { try connection.handshake() }
        #expect(connection.negotiatedALPN == "h2")

        var buffer = [UInt8](repeating: 0, count: 64)
        var received: [UInt8] = []
        while !received.contains(UInt8(ascii: "\n")) {
            let count = try Self.drive(fd) { try buffer.withUnsafeMutableBytes { try connection.read(into: $0) } }
            received += buffer[..<count]
        }
        #expect(received == Array("ping\n".utf8))
        let reply = Array("pong\n".utf8)
        _ = try Self.drive(fd) { try reply.withUnsafeBytes { try connection.write($0) } }
        connection.shutdown()
        Glibc.shutdown(fd, Int32(SHUT_RDWR))

        client.waitUntilExit()
        let transcript = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(transcript.contains("ALPN protocol: h2"), "\(transcript)")
        #expect(transcript.contains("Verify return code: 0 (ok)"), "\(transcript)")
        #expect(transcript.contains("pong"), "\(transcript)")
    }

    /// Repeats `call` until it makes progress, polling for whatever it asked to wait for.
    @discardableResult
    private static func drive(_ fd: Int32, _ call: () throws -> TLSConnection.IOResult) throws -> Int {
        while true {
            switch try call() {
            case .bytes(let count): return count
            case .wantRead: try wait(for: Int16(POLLIN), on: fd)
            case .wantWrite: try wait(for: Int16(POLLOUT), on: fd)
            case .closed: throw SocketError(operation: "TLS closed early", code: 0)
            }
        }
    }

    private static func wait(for events: Int16, on fd: Int32) throws {
        var poller = pollfd(fd: fd, events: events, revents: 0)
        guard poll(&poller, 1, 10_000) == 1 else { throw SocketError(operation: "poll timed out", code: errno) }
    }

    private static func listenOnLoopback() throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && listen(fd, 1) == 0
                    && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw SocketError(operation: "listen", code: errno) }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}
