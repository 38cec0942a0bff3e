import Foundation

/// A stand-in OpenTelemetry collector: `Tests/RuntimeTests/Fixtures/otlp_receiver.py` (grpcio
/// serving opentelemetry-proto's TraceService/Export on a loopback port), writing every span it
/// receives as one JSON object a line, decoded by the reference protobuf classes. Installs
/// grpcio and opentelemetry-proto with pip when they are missing.
package final class OTLPCollector: Sendable {
    /// Where services send spans (`RV_OTLP_ENDPOINT=127.0.0.1:<port>`).
    package let port: Int
    private let server: Subprocess.Server
    private let output: String

    private init(server: Subprocess.Server, output: String) {
        self.server = server
        self.port = server.port
        self.output = output
    }

    package static func start() async throws -> OTLPCollector {
        try await installModules()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-\(UUID().uuidString).jsonl").path
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let script = RepositoryPaths.root.appendingPathComponent("Tests/RuntimeTests/Fixtures/otlp_receiver.py").path
        do {
            return OTLPCollector(server: try await Subprocess.Server.start("/usr/bin/env", ["python3", script, "--out", output]),
                                 output: output)
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw error
        }
    }

    private static func installModules() async throws {
        let check = try await Subprocess.run("/usr/bin/env", ["python3", "-c", "import grpc, opentelemetry.proto"],
                                             timeout: .seconds(30))
        guard check.exitCode != 0 else { return }
        let install = try await Subprocess.run("/usr/bin/env", ["python3", "-m", "pip", "install", "-q", "grpcio", "opentelemetry-proto"],
                                               timeout: .seconds(300))
        if install.exitCode != 0 {
            _ = try await Subprocess.run("/usr/bin/env", ["python3", "-m", "pip", "install", "-q", "--break-system-packages",
                                                          "grpcio", "opentelemetry-proto"], timeout: .seconds(300))
        }
    }

    /// Every span received so far, as the receiver wrote it (ids in lowercase hex).
    package var spans: [[String: Any]] {
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The received spans of one trace, once `count` arrived (or after 10 s).
    package func spans(inTrace traceID: String, count: Int) async throws -> [[String: Any]] {
        var found: [[String: Any]] = []
        for _ in 0..<500 {
            found = spans.filter { $0["trace_id"] as? String == traceID }
            if found.count >= count { return found }
            try await Task.sleep(for: .milliseconds(20))
        }
        return found
    }

    package func stop() {
        server.stop()
        try? FileManager.default.removeItem(atPath: output)
    }
}
