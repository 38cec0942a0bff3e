import Foundation
import Histogram

/// The printed tables.
enum Report {
    /// Prints a line at once (unbuffered, also into a file or pipe, so a long run shows its steps).
    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static let stepHeader = "\n users  actions/s  answered/s  server CPU  client CPU  failures  setup s  result"

    static func stepLine(_ step: Step, setup: Duration) -> String {
        let answered = step.outcomes.filter { $0.key != .delivery }.values.reduce(0) { $0 + Int($1.latencies.totalCount) }
        let failures = step.outcomes.values.reduce(0) { $0 + $1.failureCount }
        let server = 100 * step.cpu.server / step.seconds
        let client = 100 * (step.cpu.seconds["client"] ?? 0) / step.seconds
        return String(format: "%6d %10.1f %11.1f %10.0f %% %10.0f %% %9d %8.1f  ", step.users, Double(step.scheduled) / step.seconds,
                      Double(answered) / step.seconds, server, client, failures, seconds(setup))
            + (step.outcomes.brokenServiceLevel() == nil ? "held" : "broke")
    }

    static func held(_ step: Step) -> String {
        var lines = ["", "held: \(step.users) concurrently active users (p99 ≤ 100 ms reads, ≤ 250 ms writes, < 0.1 % failed)",
                     "", pad("action", 52) + " kind    count    p50 ms    p99 ms  p99.9 ms  refused  failed"]
        for (action, entry) in step.outcomes.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            lines.append(pad(action.rawValue, 52) + " " + pad(action.kind.rawValue, 5) + String(format: " %7d %9.1f %9.1f %9.1f %8d %7d",
                                                           Int(entry.latencies.totalCount), milliseconds(entry.percentile(50)),
                                                           milliseconds(entry.percentile(99)), milliseconds(entry.percentile(99.9)),
                                                           entry.refusalCount, entry.failureCount))
            for (label, count) in (entry.failures.merging(entry.refusals) { $0 + $1 }).sorted(by: { $0.key < $1.key }) {
                lines.append("      \(count)× \(label)")
            }
        }
        for kind in [UserModel.Kind.read, .write] {
            let all = step.outcomes.latencies(of: kind)
            lines.append(pad("all \(kind.rawValue)s", 52) + " " + pad(kind.rawValue, 5)
                         + String(format: " %7d %9.1f %9.1f %9.1f", Int(all.totalCount), Double(all.valueAtPercentile(50)) / 1000,
                                  Double(all.valueAtPercentile(99)) / 1000, Double(all.valueAtPercentile(99.9)) / 1000))
        }
        let userMinutes = Double(step.users) * step.seconds / 60
        lines += ["", "CPU per active user-minute (ms), \(step.users) users for \(String(format: "%.1f", step.seconds)) s:"]
        for part in CPUReading.parts {
            let used = step.cpu.seconds[part] ?? 0
            lines.append(pad("  " + part, 14) + String(format: " %8.2f ms   (%5.1f %% of a core)", 1000 * used / userMinutes,
                                                      100 * used / step.seconds))
        }
        lines.append(pad("  server", 14) + String(format: " %8.2f ms   (%5.1f %% of a core)", 1000 * step.cpu.server / userMinutes,
                                                   100 * step.cpu.server / step.seconds))
        return lines.joined(separator: "\n")
    }

    /// The five actions costing the most, each with where its CPU goes (parts over 5 % of it).
    static func mostExpensive(_ costs: [UserModel.Action: [String: Double]], in step: Step) -> String {
        let totals = costs.map { action, parts in
            let perCall = parts.values.reduce(0, +)
            return (action, parts, perCall, perCall * Double(step.outcomes[action]?.latencies.totalCount ?? 0) / step.seconds)
        }.sorted { $0.3 > $1.3 }
        var lines = ["", "the five actions costing the most server CPU in the held step (cost of one measured alone × count):",
                     pad("action", 52) + "  µs each  CPU % of a core  µs each by part"]
        for (action, parts, perCall, perSecond) in totals.prefix(5) {
            let split = parts.filter { $0.value >= 0.05 * perCall }.sorted { $0.value > $1.value }
                .map { "\($0.key) \(Int(($0.value * 1e6).rounded()))" }.joined(separator: ", ")
            lines.append(pad(action.rawValue, 52) + String(format: " %8.0f %12.1f  ", perCall * 1e6, 100 * perSecond) + split)
        }
        return lines.joined(separator: "\n")
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
