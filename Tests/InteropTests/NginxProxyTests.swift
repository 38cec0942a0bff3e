import Foundation
import InteropServer
import RPC
import Testing
import TestSupport

/// A stock gRPC proxy in front of our server: nginx `grpc_pass` with the routes of
/// compose/nginx/rendezvous.conf, driven by grpcio's interop client.
@Suite(.serialized)
struct NginxProxyTests {
    /// Cases that make sense through a proxy (nginx does not forward per-message compression flags
    /// untouched in every version, and cancellation timing differs, so those stay direct-only).
    static let cases = [
        "empty_unary", "large_unary", "client_streaming", "server_streaming", "ping_pong",
        "empty_stream", "custom_metadata", "status_code_and_message", "special_status_message",
        "unimplemented_method", "timeout_on_sleeping_server", "cancel_after_begin",
        "cancel_after_first_response", "concurrent_streams",
    ]

    @Test func interopCases_throughNginxGrpcPass_pass() async throws {
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let server = try RPCServer(configuration: configuration, services: [TestService()])
        let upstreamPort = try server.start()
        // Starting nginx waits for its port: off the cooperative threads.
        let proxy = try await NginxEdge.start(routes: ["/grpc.testing.": upstreamPort, "/grpc.health.": upstreamPort])
        defer { proxy.stop() }

        let script = RepositoryPaths.interopFixtures.appendingPathComponent("interop_client.py").path
        let result = try await Subprocess.run("/usr/bin/env", [
            "python3", script, "--host", "127.0.0.1", "--port", "\(proxy.port)",
            "--test_case", Self.cases.joined(separator: ","),
        ], timeout: .seconds(90))
        await server.shutdown(gracePeriod: .seconds(2))
        for name in Self.cases {
            #expect(result.output.contains("PASS \(name)\n"), "case \(name):\n\(result.output)")
        }
        #expect(result.exitCode == 0, "\(result.output)")
    }
}
