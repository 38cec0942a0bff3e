import Foundation
import GatewayClient
import Synchronization

/// Every call's latency by method, every non-OK answer, every journey's outcome; thread-safe.
final class Recorder: Sendable {
    /// Refusals the journeys ask for (their unhappy paths) or wait out (an event not yet
    /// followed, a stage not yet over): answers the users are meant to see, not errors.
    /// NO_CONSENT_TEXT: FirstDate's journey asks for the current consent text and publishes one
    /// when the app has none yet, as a host does on a new deployment: the first FirstDate journey
    /// on a fresh database (make bench's own) meets it once.
    static let journeyReasons: Set<String> = [
        "REFERRAL_CODE_USED", "QUOTA_EXCEEDED", "CONVERSATION_CLOSED", "ADMIN_ONLY", "USER_NOT_FOUND", "CONVERSATION_NOT_FOUND",
        "OUT_OF_ORDER", "CONSENT_REQUIRED", "EPISODE_NOT_FOUND", "PRODUCER_ONLY", "SEASON_EXISTS", "SESSION_FULL",
        "NOT_MEANINGFUL_YET", "HANDSHAKE_CODE_MISMATCH", "IN_PERSON_NOT_OVER", "COOLDOWN_NOT_OVER", "EVENT_PHOTO_LIMIT_REACHED",
        "NO_CONSENT_TEXT",
    ]

    private struct State {
        var latencies: [String: [UInt64]] = [:]
        var answers: [String: Int] = [:]
        var completed: [String: Int] = [:]
        var journeyTimes: [String: [UInt64]] = [:]
        var failures: [String: Int] = [:]
    }

    private let state = Mutex(State())

    func call(_ method: String, _ duration: Duration, _ error: GatewayError?) {
        let nanoseconds = Self.nanoseconds(duration)
        state.withLock { state in
            state.latencies[method, default: []].append(nanoseconds)
            if let error { state.answers["\(method) \(error.code) \(error.reason ?? "-")", default: 0] += 1 }
        }
    }

    func journey(_ name: String, _ duration: Duration, failure: String?) {
        state.withLock { state in
            if let failure {
                state.failures["\(name): \(failure.prefix(300))", default: 0] += 1
            } else {
                state.completed[name, default: 0] += 1
                state.journeyTimes[name, default: []].append(Self.nanoseconds(duration))
            }
        }
    }

    /// Journeys that failed so far.
    var failedJourneys: Int { state.withLock { $0.failures.values.reduce(0, +) } }

    /// The printed table.
    func report(elapsed: Duration, memory: [(String, Int)]) -> String {
        let state = state.withLock { $0 }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let calls = state.latencies.values.reduce(0) { $0 + $1.count }
        let journeys = state.completed.values.reduce(0, +)
        var lines = [
            String(format: "elapsed %.1f s: %d journeys completed = %.2f journeys/s; %d calls = %.1f calls/s; %d journeys failed",
                   seconds, journeys, Double(journeys) / seconds, calls, Double(calls) / seconds, state.failures.values.reduce(0, +)),
            "",
            "journey      completed   p50 s   p99 s",
        ]
        for (name, times) in state.journeyTimes.sorted(by: { $0.key < $1.key }) {
            let sorted = times.sorted()
            lines.append(Self.pad(name, 12) + String(format: " %9d %7.2f %7.2f", sorted.count,
                                                     Double(Self.percentile(sorted, 0.5)) / 1e9, Double(Self.percentile(sorted, 0.99)) / 1e9))
        }
        lines += ["", "method                                                 calls    p50 ms    p99 ms"]
        for (method, values) in state.latencies.sorted(by: { $0.key < $1.key }) {
            let sorted = values.sorted()
            lines.append(Self.pad(method, 52) + String(format: " %7d %9.1f %9.1f", sorted.count,
                                                         Double(Self.percentile(sorted, 0.5)) / 1e6, Double(Self.percentile(sorted, 0.99)) / 1e6))
        }
        let (asked, unexpected) = state.answers.sorted { $0.key < $1.key }.reduce(into: ([String](), [String]())) { split, entry in
            let line = String(format: "%7d  ", entry.value) + entry.key
            if Self.journeyReasons.contains(String(entry.key.split(separator: " ").last ?? "")) {
                split.0.append(line)
            } else {
                split.1.append(line)
            }
        }
        lines += ["", "errors (none expected): \(unexpected.isEmpty ? "none" : "")"] + unexpected
        lines += ["", "refusals the journeys ask for or wait out (not errors):"] + asked
        if !state.failures.isEmpty {
            lines += ["", "journey failures:"] + state.failures.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }
        }
        lines += ["", "process                    peak RSS (VmHWM)"]
        for (name, kib) in memory { lines.append(Self.pad(name, 26) + String(format: " %8.1f MiB", Double(kib) / 1024)) }
        return lines.joined(separator: "\n")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        UInt64(max(0, duration.components.seconds)) * 1_000_000_000 + UInt64(max(0, duration.components.attoseconds) / 1_000_000_000)
    }

    /// Nearest-rank percentile of a sorted sample.
    static func percentile(_ sorted: [UInt64], _ fraction: Double) -> UInt64 {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[max(0, min(sorted.count - 1, rank - 1))]
    }
}
