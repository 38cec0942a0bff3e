import Foundation
import GatewayClient
import Histogram
import Synchronization

/// One ramp step's outcomes: per action an HdrHistogram of latencies in microseconds (measured
/// from the action's scheduled time, so a slow answer also delays nothing that would hide it),
/// failures by status and reason, and the refusals users are meant to meet, apart. Thread-safe.
final class LatencyBook: Sendable {
    struct Entry: Sendable {
        var latencies = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000,
                                          numberOfSignificantValueDigits: .three)
        var failures: [String: Int] = [:]
        var refusals: [String: Int] = [:]

        var failureCount: Int { failures.values.reduce(0, +) }
        var refusalCount: Int { refusals.values.reduce(0, +) }
        /// Every outcome: answered (in the histogram), refused or failed.
        var total: Int { Int(latencies.totalCount) + failureCount }

        func percentile(_ value: Double) -> Duration { .microseconds(Int64(latencies.valueAtPercentile(value))) }
    }

    /// Reasons the model's users are meant to meet: a Swivo like racing the like that ended the
    /// session, a like on someone who blocked or left, a sign-up of an address taken.
    static let expectedReasons: Set<String> = ["SESSION_CLOSED", "SESSION_NOT_FOUND", "USER_NOT_FOUND", "ALREADY_SWIPED",
                                               "EMAIL_TAKEN", "EVENT_PHOTO_LIMIT_REACHED"]

    private let entries = Mutex<[UserModel.Action: Entry]>([:])

    /// An answered action, `latency` after its scheduled time.
    func answered(_ action: UserModel.Action, _ latency: Duration) {
        let microseconds = UInt64(max(1, latency.components.seconds * 1_000_000 + latency.components.attoseconds / 1_000_000_000_000))
        entries.withLock { _ = $0[action, default: Entry()].latencies.record(min(microseconds, 120_000_000)) }
    }

    /// An action that did not complete: a refusal the model expects counts as answered (its
    /// latency too), anything else is a failure.
    func failed(_ action: UserModel.Action, _ error: any Error, after latency: Duration) {
        let (label, reason) = Self.describe(error)
        if let reason, Self.expectedReasons.contains(reason) {
            answered(action, latency)
            entries.withLock { $0[action, default: Entry()].refusals[label, default: 0] += 1 }
        } else {
            entries.withLock { $0[action, default: Entry()].failures[label, default: 0] += 1 }
        }
    }

    /// A delivery that never arrived (counted as a failure of `.delivery`).
    func lost(_ count: Int) {
        guard count > 0 else { return }
        entries.withLock { $0[.delivery, default: Entry()].failures["never delivered", default: 0] += count }
    }

    var snapshot: [UserModel.Action: Entry] { entries.withLock { $0 } }

    static func describe(_ error: any Error) -> (label: String, reason: String?) {
        if let error = error as? GatewayError {
            return ("\(error.code) \(error.reason ?? "-")", error.reason)
        }
        return ("\(error)".prefix(120).description, nil)
    }
}

extension [UserModel.Action: LatencyBook.Entry] {
    /// Which service level the step broke, or nil when it held: the p99 of all reads within
    /// 100 ms and of all writes within 250 ms (judged per kind: an action done a few dozen times
    /// a step has no p99 of its own, only a maximum), and failures under 0.1 % of all actions.
    func brokenServiceLevel() -> String? {
        let total = values.reduce(0) { $0 + $1.total }
        let failures = values.reduce(0) { $0 + $1.failureCount }
        if total > 0, Double(failures) / Double(total) >= 0.001 {
            return "\(failures) of \(total) actions failed (\(String(format: "%.2f", 100 * Double(failures) / Double(total))) %, limit 0.1 %)"
        }
        for kind in [UserModel.Kind.read, .write] {
            let p99 = latencies(of: kind).valueAtPercentile(99)
            if Duration.microseconds(Int64(p99)) > kind.p99Limit {
                return "\(kind.rawValue)s' p99 \(Double(p99) / 1000) ms > \(Report.milliseconds(kind.p99Limit)) ms"
            }
        }
        return nil
    }

    /// Every action of `kind` in one histogram.
    func latencies(of kind: UserModel.Kind) -> Histogram<UInt64> {
        var all = LatencyBook.Entry().latencies
        for (action, entry) in self where action.kind == kind { all.add(entry.latencies) }
        return all
    }
}
