import Foundation
import TestSupport

/// CPU seconds used so far by each part of the system: every service (its instances summed),
/// the edge (nginx master and workers), Postgres and this client.
struct CPUReading: Sendable {
    var seconds: [String: Double]

    static let parts = JourneyStack.services + ["edge", "postgres", "client"]

    init(_ stack: JourneyStack) {
        var seconds: [String: Double] = [:]
        for (name, pid) in stack.pids {
            let part = name.hasPrefix("nginx") ? "edge" : String(name.prefix { $0 != "-" })
            seconds[part, default: 0] += ProcessCPU.seconds(pid: pid) ?? 0
        }
        seconds["postgres"] = ProcessCPU.postgresSeconds()
        seconds["client"] = ProcessCPU.seconds(pid: nil) ?? 0
        self.seconds = seconds
    }

    private init(seconds: [String: Double]) { self.seconds = seconds }

    static func - (later: CPUReading, earlier: CPUReading) -> CPUReading {
        CPUReading(seconds: later.seconds.merging(earlier.seconds.mapValues { -$0 }) { $0 + $1 })
    }

    /// The server side: services, edge and Postgres (not the load generator).
    var server: Double { seconds.filter { $0.key != "client" }.values.reduce(0, +) }
}
