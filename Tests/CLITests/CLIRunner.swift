import Foundation
import TestSupport

/// The built `rendezvous` executable run as a person or a script runs it: its own process, its
/// own session file, stdout and stderr apart.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var elapsed: Duration

        /// stdout parsed as one JSON object.
        func json() throws -> [String: Any] {
            guard let object = try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
                throw SubprocessError(message: "stdout is not a JSON object: \(stdout) (status \(status), stderr: \(stderr))")
            }
            return object
        }
    }

    /// Options every run gets (address, app, session file…).
    var globalArguments: [String]

    /// A runner talking to `127.0.0.1:port` over h2c as `app`, with a fresh session file.
    static func make(port: Int, app: String) -> CLIRunner {
        let session = NSTemporaryDirectory() + "rv-cli-session-\(UUID().uuidString).json"
        return CLIRunner(globalArguments: ["--address", "127.0.0.1:\(port)", "--plaintext", "--app", app, "--session-file", session])
    }

    func run(_ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(60)) async throws -> Result {
        let executable = try RepositoryPaths.builtExecutable("rendezvous")
        let clock = ContinuousClock()
        let start = clock.now
        // Options after the subcommand's own arguments, as argument-parser takes them anywhere.
        let result = try await Subprocess.run(executable, arguments + globalArguments,
                                              environment: ["RENDEZVOUS_ADDRESS": "", "RENDEZVOUS_APP": "", "RENDEZVOUS_CA_FILE": ""].merging(environment) { $1 },
                                              timeout: timeout, separateErrorOutput: true)
        return Result(status: result.exitCode, stdout: result.output, stderr: result.errorOutput, elapsed: clock.now - start)
    }

    /// Runs the command on a pseudo-terminal, as a person at a terminal would (util-linux's
    /// `script`); stdout and stderr both arrive in `stdout`, as the terminal shows them.
    func runInTerminal(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> Result {
        let executable = try RepositoryPaths.builtExecutable("rendezvous")
        let command = ([executable] + arguments + globalArguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await Subprocess.run("/usr/bin/script", ["-q", "-e", "-c", command.joined(separator: " "), "/dev/null"],
                                              environment: ["RENDEZVOUS_ADDRESS": "", "RENDEZVOUS_APP": "", "RENDEZVOUS_CA_FILE": ""],
                                              timeout: timeout, separateErrorOutput: true)
        return Result(status: result.exitCode, stdout: result.output, stderr: result.errorOutput, elapsed: clock.now - start)
    }
}
