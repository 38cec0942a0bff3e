import Synchronization

/// One named readiness check and its last result. A probe within `maxAge` of the last result
/// reuses it, and however many probes arrive, at most one evaluation runs at a time: probes
/// cost the dependency at most one round trip per `maxAge`.
///
/// A probe waits for an evaluation at most `timeout` after the evaluation began, then answers
/// "timed out": the evaluation is an unstructured task, so a check that ignores cancellation
/// (a connect blocked in libpq) cannot hold the probe. Its result, when it comes, is kept.
final class ReadinessCheck: Sendable {
    let name: String
    let maxAge: Duration
    private let check: Readiness.Check
    private let clock = ContinuousClock()

    private struct State {
        /// The outcome of the last finished evaluation, and when it finished.
        var last: (outcome: Outcome, at: ContinuousClock.Instant)?
        /// When the evaluation in flight began; nil when none is.
        var runningSince: ContinuousClock.Instant?
        var waiters: [Int: CheckedContinuation<Outcome, Never>] = [:]
        var nextWaiter = 0

        enum Step {
            case answer(Outcome)
            /// Wait for waiter `id` until `deadline`; start an evaluation first when `start`.
            case wait(id: Int, deadline: ContinuousClock.Instant, start: Bool)
        }

        mutating func probe(now: ContinuousClock.Instant, maxAge: Duration, timeout: Duration,
                            continuation: CheckedContinuation<Outcome, Never>) -> Step {
            if let last, now - last.at < maxAge { return .answer(last.outcome) }
            if let since = runningSince, now - since >= timeout { return .answer(.failed("timed out")) }
            let id = nextWaiter
            nextWaiter += 1
            waiters[id] = continuation
            let start = runningSince == nil
            if start { runningSince = now }
            // Safe: set just above when it was nil.
            return .wait(id: id, deadline: runningSince! + timeout, start: start)
        }

        mutating func finish(_ outcome: Outcome, at now: ContinuousClock.Instant) -> [CheckedContinuation<Outcome, Never>] {
            last = (outcome, now)
            runningSince = nil
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
    }

    /// A check's verdict.
    enum Outcome: Sendable, Equatable {
        case passed
        case failed(String)
    }

    private let state = Mutex(State())

    init(name: String, maxAge: Duration, check: @escaping Readiness.Check) {
        self.name = name
        self.maxAge = maxAge
        self.check = check
    }

    /// The cached outcome, or that of an evaluation (started now or already running), or
    /// "timed out" once the evaluation has run for `timeout`.
    func outcome(timeout: Duration) async -> Outcome {
        await withCheckedContinuation { continuation in
            let now = clock.now
            let step = state.withLock { $0.probe(now: now, maxAge: maxAge, timeout: timeout, continuation: continuation) }
            switch step {
            case .answer(let outcome):
                continuation.resume(returning: outcome)
            case .wait(let id, let deadline, let start):
                if start { startEvaluation() }
                Task {
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    self.state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: .failed("timed out"))
                }
            }
        }
    }

    private func startEvaluation() {
        Task {
            let outcome: Outcome
            do {
                try await self.check()
                outcome = .passed
            } catch {
                outcome = .failed("\(error)")
            }
            let waiters = self.state.withLock { $0.finish(outcome, at: self.clock.now) }
            for waiter in waiters { waiter.resume(returning: outcome) }
        }
    }
}
