import Contracts
import Foundation
import RPC
import Synchronization
import Testing
import TestSupport

/// The real executable on `ServiceMain`: SIGTERM during a streaming call.
@Suite struct InteropServerLifecycleTests {
    typealias Messages = GRPCTesting

    @Test(.timeLimit(.minutes(1)))
    func sigterm_duringStreamingCall_drainsAndExitsZero() async throws {
        let server = try LaunchedServer.start(environment: ["RV_SHUTDOWN_GRACE_SECONDS": "10", "RV_LOG_FORMAT": "json"])
        defer { server.killIfRunning() }
        #expect(try await HTTPProbe.get("/readyz", port: server.adminPort).status == 200)

        let client = RPCClient(host: "127.0.0.1", port: server.port)
        defer { client.close() }
        var request = Messages.StreamingOutputCallRequest()
        request.responseParameters = (0..<5).map { _ in Messages.ResponseParameters(size: 16, intervalUs: 400_000) }
        let call = try await client.serverStreaming(path: "/grpc.testing.TestService/StreamingOutputCall", request: request,
                                                    as: Messages.StreamingOutputCallResponse.self)
        var responses = call.makeAsyncIterator()
        _ = try #require(try await responses.next())

        let clock = ContinuousClock()
        let signalled = clock.now
        kill(server.process.processIdentifier, SIGTERM)

        let readyzStatuses = Mutex<[Int]>([])
        let poller = Task {
            while !Task.isCancelled {
                guard let response = try? await HTTPProbe.get("/readyz", port: server.adminPort, timeoutSeconds: 2) else { return }
                readyzStatuses.withLock { $0.append(response.status) }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }

        var received = 1
        while try await responses.next() != nil { received += 1 }
        let status = await call.status()
        #expect(received == 5)
        #expect(status.code == .ok)

        let exited = await server.waitForExit(timeout: .seconds(12))
        let elapsed = clock.now - signalled
        poller.cancel()
        await poller.value
        let logs = server.standardError()
        try #require(exited, "interop-server did not exit after SIGTERM; its log:\n\(logs)")
        #expect(server.process.terminationReason == .exit)
        #expect(server.process.terminationStatus == 0, "log:\n\(logs)")
        #expect(elapsed < .seconds(10), "exit took \(elapsed)")
        let statuses = readyzStatuses.withLock { $0 }
        #expect(statuses.contains(503), "readyz during drain: \(statuses)")
        // The signal arrives asynchronously, so the first probes may still see 200; never after a 503.
        #expect(!statuses.drop { $0 != 503 }.contains(200), "readyz said ready again while draining: \(statuses)")
        #expect(logs.contains(#""message":"draining""#))
        #expect(logs.contains(#""rpc.method":"/grpc.testing.TestService/StreamingOutputCall""#))
    }

    /// A SIGTERM the moment the process has said where it listens (an orchestrator stopping a pod
    /// that just started) still drains and exits 0 with its log written: by then the signal is
    /// trapped. It used to be said before the service group trapped it, and such a SIGTERM met
    /// the default action: killed, no drain, no log.
    @Test(.timeLimit(.minutes(1)))
    func sigterm_assoonAsItSaysWhereItListens_drainsAndExitsZero() async throws {
        for _ in 0..<5 {
            let server = try LaunchedServer.start(environment: ["RV_LOG_FORMAT": "json"])
            defer { server.killIfRunning() }
            kill(server.process.processIdentifier, SIGTERM)
            let exited = await server.waitForExit(timeout: .seconds(12))
            let logs = server.standardError()
            try #require(exited, "interop-server did not exit after SIGTERM; its log:\n\(logs)")
            #expect(server.process.terminationReason == .exit, "ended by a signal; its log:\n\(logs)")
            #expect(server.process.terminationStatus == 0, "log:\n\(logs)")
            #expect(logs.contains(#""message":"stopped""#), "log:\n\(logs)")
        }
    }

    /// A process allowed one CPU (taskset here; a container's CPU limit of 1 the same way)
    /// serves on one event loop, and says so as it starts.
    @Test(.timeLimit(.minutes(1)))
    func pinnedToOneCPU_servesOnOneEventLoop() async throws {
        let server = try LaunchedServer.start(environment: ["RV_LOG_FORMAT": "json"], launcher: ["taskset", "-c", "0"])
        defer { server.killIfRunning() }
        try await expectServedOnOneEventLoop(server)
    }

    /// A container's CPU limit is its cgroup's quota: a process in a cgroup allowed half a CPU
    /// (a real one, made here: cgroup v1's `cpu` controller, as on this kind of host) serves on
    /// one event loop, not one per core of the machine.
    @Test(.timeLimit(.minutes(1)), .enabled(if: CPUCgroup.writable, "needs root and cgroup v1's cpu controller"))
    func inACgroupWithHalfACPU_servesOnOneEventLoop() async throws {
        let cgroup = try CPUCgroup(quotaMicroseconds: 50_000)
        defer { cgroup.remove() }
        let server = try LaunchedServer.start(environment: ["RV_LOG_FORMAT": "json", "RV_CGROUP": cgroup.path],
                                              launcher: ["sh", "-c", #"echo $$ > "$RV_CGROUP/cgroup.procs" && exec "$0" "$@""#])
        defer { server.killIfRunning() }
        try await expectServedOnOneEventLoop(server)
    }

    /// Once ready, stopped (its log is complete once it exited): its "serving" line says one loop.
    private func expectServedOnOneEventLoop(_ server: LaunchedServer) async throws {
        #expect(try await HTTPProbe.get("/readyz", port: server.adminPort).status == 200)
        kill(server.process.processIdentifier, SIGTERM)
        #expect(await server.waitForExit(timeout: .seconds(12)))
        let logs = server.standardError()
        #expect(logs.contains(#""event_loops":1,"#), "log:\n\(logs)")
    }

    @Test func badConfiguration_exitsTwoNamingTheVariable() async throws {
        let executable = try RepositoryPaths.builtExecutable("interop-server")
        let result = try await Subprocess.run(executable, ["--port", "0"], environment: ["RV_LOG_LEVEL": "chatty"],
                                              timeout: .seconds(30))
        #expect(result.exitCode == 2)
        #expect(result.output.contains("RV_LOG_LEVEL"))
    }
}

/// `interop-server --port 0` as a child process, with its ports read from its standard output.
final class LaunchedServer: @unchecked Sendable {
    // @unchecked Sendable: set once in `start`; Process is safe to query and signal from any thread.
    let process: Process
    let port: Int
    let adminPort: Int
    private let logFile: String

    private init(process: Process, port: Int, adminPort: Int, logFile: String) {
        self.process = process
        self.port = port
        self.adminPort = adminPort
        self.logFile = logFile
    }

    /// `launcher`: a command (found on PATH) that runs the server, e.g. `["taskset", "-c", "0"]`.
    static func start(environment: [String: String], launcher: [String] = []) throws -> LaunchedServer {
        let process = Process()
        let executable = try RepositoryPaths.builtExecutable("interop-server")
        if launcher.isEmpty {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--port", "0"]
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = launcher + [executable, "--port", "0"]
        }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let output = Pipe()
        process.standardOutput = output
        let logFile = NSTemporaryDirectory() + "interop-server-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logFile)
        try process.run()

        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let port = Self.port(after: "interop-server listening on ", in: text),
               let adminPort = Self.port(after: "interop-server admin on ", in: text) {
                return LaunchedServer(process: process, port: port, adminPort: adminPort, logFile: logFile)
            }
        }
        process.terminate()
        throw ProbeError("interop-server did not report its ports: \(text)")
    }

    private static func port(after prefix: String, in text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            if let colon = line.lastIndex(of: ":") { return Int(line[line.index(after: colon)...]) }
        }
        return nil
    }

    func waitForExit(timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while process.isRunning && clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return !process.isRunning
    }

    func standardError() -> String {
        (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
    }

    func killIfRunning() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: logFile)
    }
}

/// A cgroup of cgroup v1's `cpu` controller with a CPU quota, made for one test.
struct CPUCgroup {
    static let hierarchy = "/sys/fs/cgroup/cpu"
    static var writable: Bool { getuid() == 0 && access(hierarchy + "/cpu.cfs_quota_us", W_OK) == 0 }

    let path = hierarchy + "/rv-test-\(UUID().uuidString.prefix(8))"

    /// The quota per 100 ms period.
    init(quotaMicroseconds: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        try "100000".write(toFile: path + "/cpu.cfs_period_us", atomically: false, encoding: .utf8)
        try "\(quotaMicroseconds)".write(toFile: path + "/cpu.cfs_quota_us", atomically: false, encoding: .utf8)
    }

    /// Removes it once its processes have exited.
    func remove() { rmdir(path) }
}
