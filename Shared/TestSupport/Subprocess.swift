package import Foundation
import Synchronization

/// A child process for tests: output captured, always reaped, killed if it outlives its time.
package struct SubprocessResult: Sendable {
    package var exitCode: Int32
    /// Standard output, and standard error too unless the run kept it apart.
    package var output: String
    /// Standard error when `run(…, separateErrorOutput: true)` kept it apart; otherwise empty.
    package var errorOutput = ""
}

package enum Subprocess {
    /// Runs `executable` with `arguments` and waits at most `timeout`, killing it after that.
    /// `separateErrorOutput`: standard error goes to `errorOutput` instead of `output` (through a
    /// file, so neither stream can fill its pipe while the other is read).
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                            timeout: Duration = .seconds(120), separateErrorOutput: Bool = false) async throws -> SubprocessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let output = Pipe()
        process.standardOutput = output
        let errorFile = separateErrorOutput ? NSTemporaryDirectory() + "rv-stderr-\(UUID().uuidString)" : nil
        if let errorFile {
            _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: errorFile)
        } else {
            process.standardError = output
        }
        defer { if let errorFile { try? FileManager.default.removeItem(atPath: errorFile) } }
        try process.run()
        let killer = Task.detached {
            try await Task.sleep(for: timeout)
            Subprocess.terminate(process, grace: .seconds(2))
        }
        // Reading to EOF and reaping block: do both on a thread of their own, never on one of
        // the few threads of Swift's cooperative pool (2 on this machine).
        let data = await onDedicatedThread {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        killer.cancel()
        let errors = errorFile.flatMap { FileManager.default.contents(atPath: $0) } ?? Data()
        return SubprocessResult(exitCode: process.terminationStatus, output: String(decoding: data, as: UTF8.self),
                                errorOutput: String(decoding: errors, as: UTF8.self))
    }

    /// Runs blocking `work` on a new thread and resumes the caller with its result.
    package static func onDedicatedThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.start()
        }
    }

    /// SIGTERM, then SIGKILL if `process` is still running after `grace`; returns once it exited.
    package static func terminate(_ process: Process, grace: Duration) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(Double(grace.components.seconds)
                                                 + Double(grace.components.attoseconds) / 1e18)
        while process.isRunning && !hasEnded(process.processIdentifier) && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        waitForExit(process)
    }

    /// Returns once `process` exited. Not Foundation's `waitUntilExit`: it spins its run loop,
    /// and in a chaos run it never returned for a child killed with SIGKILL, which stayed a
    /// zombie nobody reaped while `isRunning` stayed true. The kernel's view decides too: a child
    /// that is a zombie or gone has exited (its status may then be unread: do not ask for it).
    package static func waitForExit(_ process: Process) {
        while process.isRunning && !hasEnded(process.processIdentifier) { usleep(5_000) }
    }

    /// Whether `pid` is a zombie or no longer exists, by the state in `/proc/<pid>/stat`.
    static func hasEnded(_ pid: Int32) -> Bool {
        guard let state = ProcessCPU.statFields(pid)?.fields.first else { return true }
        return state == "Z" || state == "X"
    }

    /// A long-running child (a grpcio server, a Python stand-in for S3, Instagram or an LLM
    /// endpoint) that prints `<readyPrefix><port>` (and optionally more words) when ready.
    /// Its standard input is a pipe of its own, closed by `stop`: a stand-in that exits when its
    /// input closes stops however the suite ends. Its init blocks while the child starts: create
    /// it with `await Server.start(...)`.
    package final class Server: @unchecked Sendable {
        // @unchecked Sendable: set once in init; Process is thread-safe for terminate.
        package let process: Process
        package let port: Int
        /// The words of the ready line after the port (a stand-in's generated credentials).
        package let readyWords: [String]
        private let input: Pipe
        private let inputOpen = Mutex(true)

        /// Starts the child without blocking Swift's cooperative threads.
        package static func start(_ executable: String, _ arguments: [String], readyPrefix: String = "LISTENING ",
                                  standardError: FileHandle = .standardError) async throws -> Server {
            try await onDedicatedThread {
                Result { try Server(executable, arguments, readyPrefix: readyPrefix, standardError: standardError) }
            }.get()
        }

        /// `standardError`: where the child's errors go. A stand-in that should not hold the test
        /// runner's output open (`swift test` waits for every holder after the tests end) gets
        /// `.nullDevice`.
        package init(_ executable: String, _ arguments: [String], readyPrefix: String = "LISTENING ",
                     standardError: FileHandle = .standardError) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let output = Pipe()
            let input = Pipe()
            process.standardOutput = output
            process.standardInput = input
            process.standardError = standardError
            try process.run()
            self.process = process
            self.input = input
            var buffer = Data()
            let handle = output.fileHandleForReading
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                let text = String(decoding: buffer, as: UTF8.self)
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(readyPrefix) }) {
                    let words = line.dropFirst(readyPrefix.count).split(separator: " ").map {
                        $0.trimmingCharacters(in: .whitespacesAndNewlines)
                    }
                    if let first = words.first, let port = Int(first) {
                        self.port = port
                        self.readyWords = Array(words.dropFirst())
                        return
                    }
                }
            }
            try? input.fileHandleForWriting.close()
            Subprocess.terminate(process, grace: .seconds(2))
            throw SubprocessError(message: "server did not become ready: \(String(decoding: buffer, as: UTF8.self))")
        }

        /// Closes the child's input, then sends SIGTERM, then SIGKILL after `grace`: a child
        /// spawned from a Swift concurrency thread inherits its blocked signal mask, so SIGTERM
        /// may never be delivered (seen with Python, which does not unblock it), and
        /// `waitUntilExit` alone would hang.
        package func stop(grace: Duration = .seconds(2)) {
            if inputOpen.withLock({ open in defer { open = false }; return open }) {
                try? input.fileHandleForWriting.close()
            }
            Subprocess.terminate(process, grace: grace)
        }

        deinit { stop() }
    }
}

package struct SubprocessError: Error, CustomStringConvertible {
    package var message: String
    package init(message: String) { self.message = message }
    package var description: String { message }
}
