/// The command line of `identity-bench`.
struct BenchOptions {
    var host = "127.0.0.1"
    var port = 7101
    /// Seconds each measured run lasts.
    var seconds = 10
    /// HTTP/2 connections the streams share.
    var connections = 4
    /// Concurrent streams of the fast workloads.
    var streamCounts = [16, 64]
    /// Concurrent streams of the password-hashing workload.
    var hashingStreams = 4
    /// Seconds of unmeasured load before the runs (pool connections, caches, page faults).
    var warmupSeconds = 2
    /// The identity server's pid, to report its CPU use per run.
    var serverPID: Int32?
    /// Run only the workloads whose names contain one of these.
    var only: [String] = []
    /// A discovery server to run discovery's workloads against too, and the app they sign in to.
    var discoveryPort: Int?
    var discoveryApp = "benchapp"
    /// After the workloads, how fast a new event consumer catches up on this many of identity's
    /// latest events (0: not measured); needs identity's database URL and a service credential
    /// identity accepts (`name:secret`).
    var catchUpEvents = 0
    /// A messaging server to measure send → realtime delivery against (RealtimeFanOutBench),
    /// its pid for CPU, the admin database URL that seeds its conversations, and the run's shape.
    var messagingPort: Int?
    var messagingPID: Int32?
    var adminURL: String?
    var messagingMembers = 1_000
    var messagingSenders = [32, 64]
    /// The Postgres postmaster's pid: its processes' CPU use is reported per messaging run.
    var postgresPID: Int32?
    var postgresURL: String?
    var serviceCredential: String?

    static let usage = """
        usage: identity-bench [--host H] [--port P] [--seconds N] [--connections N] [--streams 16,64]
                              [--hashing-streams N] [--warmup N] [--server-pid PID] [--only name,name]
                              [--discovery-port P] [--discovery-app APP]
                              [--catch-up-events N --postgres-url URL --service-credential NAME:SECRET]
                              [--messaging-port P --messaging-pid PID --admin-url URL [--messaging-members N]
                               [--messaging-senders 32,64] [--postgres-pid PID]]
        """

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var options = BenchOptions()
        var remaining = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let value = remaining.popFirst() else { throw Invalid(description: "\(flag) needs a value\n\(usage)") }
            return value
        }
        func number(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let number = Int(text), number > 0 else { throw Invalid(description: "\(flag): not a positive number: \(text)") }
            return number
        }
        while let flag = remaining.popFirst() {
            switch flag {
            case "--host": options.host = try value(flag)
            case "--port": options.port = try number(flag)
            case "--seconds": options.seconds = try number(flag)
            case "--connections": options.connections = try number(flag)
            case "--hashing-streams": options.hashingStreams = try number(flag)
            case "--warmup": options.warmupSeconds = try Int(value(flag)) ?? 0
            case "--server-pid": options.serverPID = Int32(try number(flag))
            case "--streams":
                let counts = try value(flag).split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
                guard !counts.isEmpty else { throw Invalid(description: "--streams: a list such as 16,64") }
                options.streamCounts = counts
            case "--discovery-port": options.discoveryPort = try number(flag)
            case "--discovery-app": options.discoveryApp = try value(flag)
            case "--catch-up-events": options.catchUpEvents = try number(flag)
            case "--messaging-port": options.messagingPort = try number(flag)
            case "--messaging-pid": options.messagingPID = Int32(try number(flag))
            case "--postgres-pid": options.postgresPID = Int32(try number(flag))
            case "--admin-url": options.adminURL = try value(flag)
            case "--messaging-members": options.messagingMembers = try number(flag)
            case "--messaging-senders":
                let counts = try value(flag).split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
                guard !counts.isEmpty else { throw Invalid(description: "--messaging-senders: a list such as 32,64") }
                options.messagingSenders = counts
            case "--postgres-url": options.postgresURL = try value(flag)
            case "--service-credential": options.serviceCredential = try value(flag)
            case "--only": options.only = try value(flag).split(separator: ",").map(String.init)
            default: throw Invalid(description: "unknown argument \(flag)\n\(usage)")
            }
        }
        return options
    }
}
