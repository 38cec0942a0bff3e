#if canImport(Glibc)
import Glibc
#endif
package import Foundation

/// One of the package's service executables running as a child process, as it runs in
/// production: started with its environment, ready once it prints `<name> listening on
/// HOST:PORT`, stopped with SIGTERM (SIGKILL if it does not exit). Its standard error goes to
/// a log file that failures can show.
package final class EndToEndServiceProcess: Sendable {
    package let name: String
    package let port: Int
    package let logFile: String
    private let process: Process

    /// The child's process id (for /proc figures such as its peak memory).
    package var pid: Int32 { process.processIdentifier }

    private init(name: String, port: Int, logFile: String, process: Process) {
        self.name = name
        self.port = port
        self.logFile = logFile
        self.process = process
    }

    /// A test that ends before `stop` (it threw, or forgot) must not leave its service running
    /// past it: an orphan keeps serving the shared database, claiming jobs and applying events
    /// meant for the next test's instances, until someone kills it.
    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// Starts executable `name` from this build (or the one at `executable`, e.g. an earlier
    /// release's) and waits (on a thread of its own, never one of Swift's few cooperative
    /// threads) for its listening line.
    package static func start(_ name: String, executable: String? = nil, environment: [String: String],
                      timeout: Duration = .seconds(60)) async throws -> EndToEndServiceProcess {
        let executable = try executable ?? RepositoryPaths.builtExecutable(name)
        return try await Subprocess.onDedicatedThread {
            Result { try launch(name: name, executable: executable, environment: environment, timeout: timeout) }
        }.get()
    }

    private static func launch(name: String, executable: String, environment: [String: String],
                               timeout: Duration) throws -> EndToEndServiceProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = []
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let output = Pipe()
        process.standardOutput = output
        let logFile = NSTemporaryDirectory() + "\(name)-e2e-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logFile)
        try process.run()

        let prefix = "\(name) listening on "
        var text = ""
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds))
        while Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
               let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
                return EndToEndServiceProcess(name: name, port: port, logFile: logFile, process: process)
            }
        }
        Subprocess.terminate(process, grace: .seconds(5))
        let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        throw SubprocessError(message: "\(name) did not start listening; stdout:\n\(text)\nstderr:\n\(log)")
    }

    /// The child's standard error so far.
    package var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// The last one-time code the development sender logged for `phone` (E.164), as the phone
    /// would have received it by SMS; nil when none was logged. Needs `RV_LOG_FORMAT=json` and
    /// a level of `notice` or lower. The sender logs before the call answers, so a code is
    /// here as soon as `startPhoneSignIn` returns.
    package func phoneCode(for phone: String) -> String? {
        var code: String?
        for line in log.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let metadata = object["metadata"] as? [String: Any],
                  metadata["phone"] as? String == phone, let logged = metadata["code"] as? String else { continue }
            code = logged
        }
        return code
    }

    /// SIGKILL, as a crash or an OOM kill ends it: no draining, no goodbye. Returns once it exited.
    package func kill() async {
        await Subprocess.onDedicatedThread { [process] in
            Glibc.kill(process.processIdentifier, SIGKILL)
            Subprocess.waitForExit(process)
        }
        try? FileManager.default.removeItem(atPath: logFile)
    }

    /// SIGSTOP: the process hangs as a stalled machine or a long GC pause hangs it (its sockets
    /// still accept connections; nothing answers) until `resume`.
    package func pause() { Glibc.kill(process.processIdentifier, SIGSTOP) }

    /// SIGCONT after `pause`.
    package func resume() { Glibc.kill(process.processIdentifier, SIGCONT) }

    /// SIGTERM, then SIGKILL after `grace`; returns once the child exited.
    package func stop(grace: Duration = .seconds(5)) async {
        await Subprocess.onDedicatedThread { [process] in Subprocess.terminate(process, grace: grace) }
        try? FileManager.default.removeItem(atPath: logFile)
    }
}
