#if canImport(Glibc)
import Glibc
#endif
package import Foundation

/// nginx in the foreground with the edge's real configuration: compose/nginx/render.sh renders
/// rendezvous.conf.template (as for `make run` and compose) with services on loopback ports.
/// Calls to a service the test did not start are UNAVAILABLE; unrouted paths UNIMPLEMENTED.
package final class NginxEdge: @unchecked Sendable {
    // @unchecked Sendable: all fields are set in init and only read afterwards.

    /// What the edge routes to and how it listens; the defaults suit tests that are not about
    /// the edge's limits (a rate no test reaches).
    package struct Options: Sendable {
        /// Each service's instances (`identity`, `discovery`, `messaging`, `production`, `media`,
        /// `interop`) by gRPC port on 127.0.0.1; the edge balances calls across them.
        package var upstreams: [String: [Int]] = [:]
        /// Media admin ports that serve signed downloads (`/media/v1/blobs/`).
        package var downloads: [Int] = []
        /// TLS (ALPN h2 and http/1.1) with a certificate from the test process's local CA
        /// (`NginxEdge.caFile`) instead of plaintext h2c.
        package var tls = false
        /// Calls per client address (nginx `rate`, e.g. `5r/s`) and the burst above it.
        package var rate = "100000r/s"
        package var burst = 100_000
        /// An ordinary call's body and an upload's whole stream (nginx sizes: `5m`).
        package var bodyMax = "5m"
        package var uploadMax = "40m"
        /// One line per call with the instance that took it (`NginxEdge.accessLog`).
        package var accessLog = false
        /// nginx run by `rendezvous-edge` as in the edge's image, counting every response for
        /// Prometheus on its admin listener (`NginxEdge.metricsPort`).
        package var metrics = false

        package init(upstreams: [String: [Int]] = [:], downloads: [Int] = [], tls: Bool = false) {
            self.upstreams = upstreams
            self.downloads = downloads
            self.tls = tls
        }
    }

    /// The gRPC listener (h2c, or TLS when `options.tls`).
    package let port: Int
    /// The plaintext HTTP/1.1 listener with the same routes, for gRPC-Web clients (browsers, curl,
    /// sonora; grpc_pass carries it to the services, which speak gRPC-Web too). With `tls` they
    /// also reach `port` by ALPN http/1.1.
    package let http1Port: Int
    /// rendezvous-edge's admin listener (`/metrics`) when started with `options.metrics`.
    package let metricsPort: Int?
    /// The rendered configuration, for a failure's report.
    package let configuration: String
    let directory: URL
    let process: Process

    /// Starts nginx routing each path prefix (`/rendezvous.discovery.`) to its port, waiting for
    /// it on a thread of its own (never one of Swift's few cooperative threads).
    /// `httpRoutes` may hold `/media/v1/blobs/`: signed downloads, proxied over HTTP/1.1 to
    /// media's admin listener as compose's edge does.
    package static func start(routes: [String: Int], httpRoutes: [String: Int] = [:]) async throws -> NginxEdge {
        try await start(upstreams: routes.mapValues { [$0] }, httpUpstreams: httpRoutes.mapValues { [$0] })
    }

    /// Starts nginx routing each path prefix to several instances (ports), balanced round robin
    /// as compose's edge balances a scaled-out service; `httpUpstreams` may hold `/media/v1/blobs/`.
    package static func start(upstreams routes: [String: [Int]], httpUpstreams httpRoutes: [String: [Int]] = [:]) async throws
        -> NginxEdge {
        var options = Options()
        for (prefix, ports) in routes {
            let service = try service(routedBy: prefix)
            for port in ports where options.upstreams[service]?.contains(port) != true {
                options.upstreams[service, default: []].append(port)
            }
        }
        for (prefix, ports) in httpRoutes {
            guard prefix == "/media/v1/blobs/" else { throw SubprocessError(message: "the edge has no HTTP route \(prefix)") }
            options.downloads += ports
        }
        return try await start(options)
    }

    /// Starts nginx with `options`, waiting for it on a thread of its own.
    package static func start(_ options: Options) async throws -> NginxEdge {
        try await Subprocess.onDedicatedThread { Result { try NginxEdge(options: options) } }.get()
    }

    /// The service of the template's location `prefix`.
    static func service(routedBy prefix: String) throws -> String {
        switch prefix {
        case "/grpc.testing.", "/grpc.health.": return "interop"
        case let prefix where prefix.hasPrefix("/rendezvous.") && prefix.hasSuffix("."):
            return String(prefix.dropFirst("/rendezvous.".count).dropLast())
        default: throw SubprocessError(message: "the edge has no route \(prefix)")
        }
    }

    /// The tests' local CA (made once by compose/nginx/make-cert.sh under `.data/`), whose
    /// certificate for localhost and 127.0.0.1 every TLS edge serves.
    package static func caFile() throws -> String {
        try certificates.get().ca
    }

    private static let certificates: Result<(ca: String, directory: String), any Error> = Result {
        // Under the repository's data folder, so runs reuse it (make-cert.sh keeps what is current).
        let directory = RepositoryPaths.root.appendingPathComponent(".data/edge-tests-tls").path
        let script = RepositoryPaths.root.appendingPathComponent("compose/nginx/make-cert.sh").path
        let output = try runScript(script, [directory])
        return (output.trimmingCharacters(in: .whitespacesAndNewlines), directory)
    }

    init(options: Options) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rv-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("logs"), withIntermediateDirectories: true)
        port = try LocalPort.free()
        http1Port = try LocalPort.free()
        var arguments = [
            "--listen", "127.0.0.1:\(port)", "--workers", "1", "--error-log", directory.appendingPathComponent("logs/error.log").path,
            "--rate", options.rate, "--burst", String(options.burst), "--body-max", options.bodyMax, "--upload-max", options.uploadMax,
        ]
        if options.tls {
            let directory = try Self.certificates.get().directory
            arguments += ["--tls", directory + "/edge.pem", directory + "/edge.key"]
        }
        arguments += ["--http1-listen", "127.0.0.1:\(http1Port)"]
        if options.accessLog { arguments += ["--access-log", directory.appendingPathComponent("logs/access.log").path] }
        metricsPort = options.metrics ? try LocalPort.free() : nil
        if let metricsPort { arguments += ["--metrics-port", String(metricsPort)] }
        for (service, ports) in options.upstreams.sorted(by: { $0.key < $1.key }) where !ports.isEmpty {
            arguments += ["--upstream", service + "=" + ports.map { "127.0.0.1:\($0)" }.joined(separator: ",")]
        }
        if !options.downloads.isEmpty {
            arguments += ["--downloads", options.downloads.map { "127.0.0.1:\($0)" }.joined(separator: ",")]
        }
        do {
            configuration = try Self.runScript(RepositoryPaths.root.appendingPathComponent("compose/nginx/render.sh").path, arguments)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        let configFile = directory.appendingPathComponent("nginx.conf")
        try configuration.write(to: configFile, atomically: true, encoding: .utf8)
        guard let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw SubprocessError(message: "nginx is not installed (make deps installs it)")
        }
        process = Process()
        if let metricsPort {
            // rendezvous-edge writes the configuration nginx runs into the prefix (nginx.conf).
            let source = directory.appendingPathComponent("edge.conf")
            try configuration.write(to: source, atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: try RepositoryPaths.builtExecutable("rendezvous-edge"))
            process.arguments = ["--config", source.path, "--prefix", directory.path + "/", "--nginx", nginx,
                                 "--metrics", "127.0.0.1:\(metricsPort)"]
        } else {
            process.executableURL = URL(fileURLWithPath: nginx)
            process.arguments = ["-p", directory.path + "/", "-c", configFile.path]
        }
        try process.run()
        // Ready when the ports accept connections.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if Self.canConnect(port: port) && Self.canConnect(port: http1Port) && metricsPort.map { Self.canConnect(port: $0) } != false { return }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
        stop()
        throw SubprocessError(message: "nginx did not start: \(log)")
    }

    /// The nginx master's process id (its worker is the master's child); rendezvous-edge's, the
    /// master's parent, with `options.metrics`.
    package var pid: Int32 { process.processIdentifier }

    /// The edge's error log so far (refused calls, upstream failures), for assertions and reports.
    package var errorLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
    }

    /// The calls so far when started with `accessLog`: `client "POST /path" status instance seconds`
    /// per line, written as each call ends.
    package var accessLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("logs/access.log"), encoding: .utf8)) ?? ""
    }

    /// `nginx -s reload`'s signal (SIGHUP to the master): it reads its configuration again and
    /// starts new workers; the old ones finish the calls they hold and exit.
    package func reload() { kill(process.processIdentifier, SIGHUP) }

    /// Stops nginx and removes its folder.
    package func stop() {
        if process.isRunning {
            process.terminate()
            Subprocess.waitForExit(process)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs a bash script to its end and returns its output; throws with its errors when it fails.
    static func runScript(_ script: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Our scripts write a few lines of errors at most, far below a pipe's buffer: reading the
        // output to its end first cannot leave the script blocked on its errors.
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw SubprocessError(message: "\(script) failed: \(message)")
        }
        return text
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    package static func canConnect(port: Int) -> Bool {
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
