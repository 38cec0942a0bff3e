import CryptoCore
import Foundation
import HTTP2
import InteropServer
import RPC
import Testing
import TestSupport

/// Stock gRPC (Python grpcio) drives our interop server through every interop case, over h2c
/// and over TLS.
@Suite(.serialized)
struct GrpcioClientTests {
    static let cases = [
        "empty_unary", "large_unary", "client_compressed_unary", "server_compressed_unary",
        "client_streaming", "client_compressed_streaming", "server_streaming",
        "server_compressed_streaming", "ping_pong", "empty_stream", "custom_metadata",
        "status_code_and_message", "special_status_message", "unimplemented_method",
        "unimplemented_service", "timeout_on_sleeping_server", "cancel_after_begin",
        "cancel_after_first_response", "concurrent_streams", "cancel_storm", "large_payloads",
    ]

    @Test func everyInteropCase_overH2C_passes() async throws {
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 2
        let server = try RPCServer(configuration: configuration, services: [TestService()])
        let port = try server.start()
        let result = try await Self.runClient(["--port", "\(port)"])
        await server.shutdown(gracePeriod: .seconds(2))
        Self.expectAllPassed(result)
    }

    @Test func everyInteropCase_overTLS_passes() async throws {
        let (certificate, key) = try TestCertificates.makeSelfSigned(commonName: "localhost")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rv-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let caFile = directory.appendingPathComponent("ca.pem")
        try Data(certificate).write(to: caFile)

        var configuration = RPCServerConfiguration()
        configuration.loopCount = 2
        configuration.security = .tls(try TLSContext.makeServer(certificateChainPEM: certificate, privateKeyPEM: key))
        let server = try RPCServer(configuration: configuration, services: [TestService()])
        let port = try server.start()
        let result = try await Self.runClient([
            "--port", "\(port)", "--use_tls", "--ca_file", caFile.path, "--server_host_override", "localhost",
        ])
        await server.shutdown(gracePeriod: .seconds(2))
        Self.expectAllPassed(result)
    }

    /// A status message longer than a client's headers can hold (here one the test service echoes
    /// from the request) reaches grpcio cut to 1 KiB, marked, at once (interop_client.py's
    /// oversized_status_message).
    @Test func anOversizedStatusMessage_reachesGrpcio_cutToOneKiB() async throws {
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let server = try RPCServer(configuration: configuration, services: [TestService()])
        let port = try server.start()
        let result = try await Self.runClient(["--port", "\(port)"], cases: ["oversized_status_message"])
        await server.shutdown(gracePeriod: .seconds(2))
        #expect(result.output.contains("PASS oversized_status_message\n"), "\(result.output)")
        #expect(result.exitCode == 0)
    }

    static func runClient(_ arguments: [String], cases: [String] = cases) async throws -> SubprocessResult {
        let script = RepositoryPaths.interopFixtures.appendingPathComponent("interop_client.py").path
        return try await Subprocess.run("/usr/bin/env", ["python3", script, "--host", "127.0.0.1",
                                                          "--test_case", cases.joined(separator: ",")] + arguments,
                                        timeout: .seconds(90))
    }

    static func expectAllPassed(_ result: SubprocessResult) {
        for name in cases {
            #expect(result.output.contains("PASS \(name)\n"), "case \(name):\n\(result.output)")
        }
        #expect(result.output.contains("\(cases.count) passed, 0 failed"), "\(result.output)")
        #expect(result.exitCode == 0)
    }
}
