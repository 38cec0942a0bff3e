import Foundation
import GatewayClient
import GatewayClientHTTP2
import TestSupport
import Testing

/// `make run`'s script (compose/local/run.sh) as a developer meets it: two instances of every
/// service behind the edge, a local CA made on the first run, the gateway client calling one
/// address over TLS, Prometheus told of every instance, and SIGTERM stopping everything.
@Suite(.serialized) struct RunScriptTests {
    @Test func twoInstancesOfEveryService_behindTheEdge_overTLS_stopTogether() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rv-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Instance i takes a port + 10·i: bases whose +10 is free too, none within 10 of another.
        var taken: Set<Int> = []
        func base() throws -> Int {
            for _ in 0..<50 {
                let port = try LocalPort.free()
                if port + 10 <= 65535, !taken.contains(where: { abs($0 - port) <= 10 }), !NginxEdge.canConnect(port: port + 10) {
                    taken.insert(port)
                    return port
                }
            }
            throw SubprocessError(message: "no free pair of ports 10 apart")
        }
        let edgePort = try base()
        let prometheusPort = try base()
        let edgeMetricsPort = try base()
        var environment = ProcessInfo.processInfo.environment
        let binaries = URL(fileURLWithPath: try RepositoryPaths.builtExecutable("identity")).deletingLastPathComponent().path
        environment.merge([
            "RV_BIN_DIR": binaries, "RV_INSTANCES": "2", "RV_EDGE_DIR": folder.path, "RV_EDGE_PORT": String(edgePort),
            "RV_EDGE_HTTP1_PORT": String(try base()), "RV_EDGE_METRICS_PORT": String(edgeMetricsPort),
            "RV_LOG_LEVEL": "error", "RV_SHUTDOWN_GRACE_SECONDS": "1",
            "RV_INTEROP_PORT": String(try base()), "RV_INTEROP_ADMIN_PORT": String(try base()),
            "RV_PROMETHEUS_PORT": String(prometheusPort), "RV_PROMETHEUS_DIR": folder.appendingPathComponent("prometheus").path,
        ]) { $1 }
        var identityPorts: [Int] = []
        var adminPorts: [String: Int] = [:]
        for service in ["identity", "discovery", "messaging", "production", "media"] {
            let port = try base()
            environment["RV_\(service.uppercased())_PORT"] = String(port)
            let admin = try base()
            adminPorts[service] = admin
            environment["RV_\(service.uppercased())_ADMIN_PORT"] = String(admin)
            environment.removeValue(forKey: "RV_\(service.uppercased())_ADDRESS")
            if service == "identity" { identityPorts = [port, port + 10] }
        }
        let output = folder.appendingPathComponent("run.log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let script = Process()
        // Started with no signal blocked, as from a terminal: Process hands the child this thread's
        // mask (our runtime blocks most signals), and bash cannot unblock SIGTERM itself.
        script.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        script.arguments = ["-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv('/bin/bash', ['bash', sys.argv[1]])",
                            RepositoryPaths.root.appendingPathComponent("compose/local/run.sh").path]
        script.environment = environment
        script.currentDirectoryURL = RepositoryPaths.root
        let log = try FileHandle(forWritingTo: output)
        script.standardOutput = log
        script.standardError = log
        script.standardInput = FileHandle.nullDevice
        try script.run()
        defer { Subprocess.terminate(script, grace: .seconds(15)) }
        var printed = ""
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, script.isRunning {
            printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if printed.contains("rendezvous: running") { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        try #require(printed.contains("rendezvous: running 13 process(es), 2 instance(s) of each service"), "\(printed)")
        let ca = folder.appendingPathComponent("tls/ca.pem").path
        #expect(printed.contains("the edge is https://127.0.0.1:\(edgePort)") && printed.contains("trust the CA in \(ca)"), "\(printed)")
        #expect(printed.contains("Prometheus on http://127.0.0.1:\(prometheusPort)"), "\(printed)")
        // Prometheus' file discovery: both instances of every service, labelled with the service.
        let targets = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("prometheus/targets/rendezvous.json")))
        var scraped: [String: Set<String>] = [:]
        for group in targets as? [[String: Any]] ?? [] {
            guard let service = (group["labels"] as? [String: String])?["service"] else { continue }
            scraped[service, default: []].formUnion(group["targets"] as? [String] ?? [])
        }
        for (service, admin) in adminPorts {
            #expect(scraped[service] == ["127.0.0.1:\(admin)", "127.0.0.1:\(admin + 10)"], "\(service): \(scraped)")
        }
        // And the edge's metrics (rendezvous-edge's admin listener), as service "edge".
        #expect(scraped["edge"] == ["127.0.0.1:\(edgeMetricsPort)"], "\(scraped)")

        // run.sh says it is running once every listener accepts connections.
        let client = try GatewayClient(configuration: GatewayConfiguration(host: "localhost", port: edgePort,
                                                                           security: .tlsTrustingRoots(pemFile: ca), app: "swivo"),
                                       tokenStore: InMemoryTokenStore())
        for _ in 0..<6 { _ = try await client.identity.signInAnonymously(deadline: .seconds(10)) }
        client.close()
        let accessLog = try String(contentsOf: folder.appendingPathComponent("run/access.log"), encoding: .utf8)
        for port in identityPorts {
            #expect(accessLog.contains("127.0.0.1:\(port) "), "instance on \(port) took no call:\n\(accessLog)")
        }
        // The edge counted the six sign-ins (nginx logs a response once it has ended).
        var metrics = ""
        let countedBy = ContinuousClock.now + .seconds(5)
        repeat {
            metrics = try await HTTPProbe.get("/metrics", port: edgeMetricsPort).body
            if Self.responses(metrics, route: "identity", code: "OK") >= 6 { break }
            try await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < countedBy
        #expect(Self.responses(metrics, route: "identity", code: "OK") == 6, "\(metrics)")

        script.terminate()
        let stopBy = ContinuousClock.now + .seconds(20)
        while script.isRunning, ContinuousClock.now < stopBy { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!script.isRunning, "run.sh did not stop on SIGTERM")
        #expect(!NginxEdge.canConnect(port: edgePort))
        #expect(!NginxEdge.canConnect(port: prometheusPort))
        #expect(!NginxEdge.canConnect(port: edgeMetricsPort))
        for port in identityPorts { #expect(!NginxEdge.canConnect(port: port)) }
    }

    /// The sum of `edge_responses_total` over the series of `route` answered `code` in a scrape.
    static func responses(_ scrape: String, route: String, code: String) -> Double {
        scrape.split(separator: "\n")
            .filter { $0.hasPrefix("edge_responses_total{") && $0.contains("route=\"\(route)\"") && $0.contains("code=\"\(code)\"") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
            .reduce(0, +)
    }
}
