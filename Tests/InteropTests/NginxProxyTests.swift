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
        let proxy = try await Subprocess.onDedicatedThread { Result { try NginxProxy(upstreamPort: upstreamPort) } }.get()
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

/// nginx in the foreground with a generated config: the edge routes of compose/nginx, pointed
/// at a loopback upstream.
final class NginxProxy: @unchecked Sendable {
    // @unchecked Sendable: all fields are set in init and only read afterwards.
    let port: Int
    let directory: URL
    let process: Process

    init(upstreamPort: Int) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rv-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("logs"), withIntermediateDirectories: true)
        port = try NginxProxy.freePort()
        let config = """
        worker_processes 1;
        daemon off;
        pid \(directory.path)/nginx.pid;
        error_log \(directory.path)/logs/error.log warn;
        events { worker_connections 1024; }
        http {
            access_log off;
            client_body_temp_path \(directory.path)/body;
            client_max_body_size 0;
            upstream interop { server 127.0.0.1:\(upstreamPort); keepalive 8; }
            server {
                listen 127.0.0.1:\(port) http2;
                location /grpc.testing. { grpc_pass grpc://interop; }
                location /grpc.health. { grpc_pass grpc://interop; }
                location / { return 404; }
            }
        }
        """
        let configFile = directory.appendingPathComponent("nginx.conf")
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        guard let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw SubprocessError(message: "nginx is not installed (make deps installs it)")
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", directory.path, "-c", configFile.path]
        try process.run()
        // Ready when the port accepts connections.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if NginxProxy.canConnect(port: port) { return }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
        stop()
        throw SubprocessError(message: "nginx did not start: \(log)")
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    static func freePort() throws -> Int {
        try LocalPort.free()
    }

    static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
