#if canImport(Glibc)
import Glibc
#endif
package import Foundation

/// nginx in the foreground with a generated config: the gRPC edge of compose/nginx
/// (`grpc_pass` by path prefix), pointed at services on loopback ports. Anything else is 404.
/// `port` speaks HTTP/2 (h2c), `http1Port` HTTP/1.1 for gRPC-Web clients (browsers, curl,
/// sonora), with the same routes.
package final class NginxEdge: @unchecked Sendable {
    // @unchecked Sendable: all fields are set in init and only read afterwards.
    package let port: Int
    package let http1Port: Int
    let directory: URL
    let process: Process

    /// Starts nginx routing each path prefix (`/rendezvous.discovery.`) to its port, waiting for
    /// it on a thread of its own (never one of Swift's few cooperative threads).
    /// `httpRoutes` are plain HTTP paths (`/media/v1/blobs/`) proxied over HTTP/1.1, as compose's
    /// edge sends signed downloads to media's admin listener.
    package static func start(routes: [String: Int], httpRoutes: [String: Int] = [:]) async throws -> NginxEdge {
        try await Subprocess.onDedicatedThread { Result { try NginxEdge(routes: routes, httpRoutes: httpRoutes) } }.get()
    }

    init(routes: [String: Int], httpRoutes: [String: Int] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rv-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("logs"), withIntermediateDirectories: true)
        port = try LocalPort.free()
        http1Port = try LocalPort.free()
        let upstreams = Set(routes.values).sorted().map { "upstream u\($0) { server 127.0.0.1:\($0); keepalive 8; }" }
        let locations = routes.sorted { $0.key < $1.key }.map { "location \($0.key) { grpc_pass grpc://u\($0.value); }" }
            + httpRoutes.sorted { $0.key < $1.key }.map {
                "location \($0.key) { proxy_pass http://127.0.0.1:\($0.value); proxy_http_version 1.1; }"
            }
        let config = """
        worker_processes 1;
        daemon off;
        pid \(directory.path)/nginx.pid;
        error_log \(directory.path)/logs/error.log warn;
        events { worker_connections 1024; }
        http {
            access_log off;
            client_body_temp_path \(directory.path)/body;
            proxy_temp_path \(directory.path)/proxy;
            client_max_body_size 0;
            grpc_read_timeout 1h;
            \(upstreams.joined(separator: "\n    "))
            server {
                listen 127.0.0.1:\(port) http2;
                listen 127.0.0.1:\(http1Port);
                \(locations.joined(separator: "\n        "))
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
            if Self.canConnect(port: port) && Self.canConnect(port: http1Port) { return }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
        stop()
        throw SubprocessError(message: "nginx did not start: \(log)")
    }

    /// Stops nginx and removes its folder.
    package func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
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
