import Synchronization

/// Whether the service should receive traffic: `/readyz` answers 200 only while the gRPC server
/// is serving and every registered check passes, and `publish` carries the same verdict to
/// grpc.health.v1, which the Kubernetes readiness probe asks.
package final class Readiness: Sendable {
    /// Where the process is in its life.
    package enum Phase: String, Sendable {
        case starting
        case serving
        case draining
    }

    /// A named check, e.g. "postgres": throws (or times out) when the dependency is unusable.
    /// The error's description is the reason `/readyz` shows: no secrets in it.
    package typealias Check = @Sendable () async throws -> Void

    private struct State {
        var phase = Phase.starting
        var checks: [ReadinessCheck] = []
    }

    private let state = Mutex(State())
    /// How long a probe waits for a check before counting it as failed ("timed out").
    package let checkTimeout: Duration
    /// How long a check's result is reused before the check runs again.
    package let maxAge: Duration

    /// Starts in `.starting`, with no checks.
    package init(checkTimeout: Duration = .seconds(2), maxAge: Duration = .seconds(1)) {
        self.checkTimeout = checkTimeout
        self.maxAge = maxAge
    }

    /// The current phase.
    package var phase: Phase { state.withLock { $0.phase } }

    /// Called once the gRPC server accepts calls.
    package func markServing() {
        state.withLock { if $0.phase == .starting { $0.phase = .serving } }
    }

    /// Called on SIGTERM; the service never becomes ready again.
    package func markDraining() {
        state.withLock { $0.phase = .draining }
    }

    /// Adds a check consulted by every `/readyz` while serving. Probes within `maxAge` of its
    /// last run reuse that result, so probes cost the dependency at most one call a `maxAge`.
    package func addCheck(_ name: String, _ check: @escaping Check) {
        let check = ReadinessCheck(name: name, maxAge: maxAge, check: check)
        state.withLock { $0.checks.append(check) }
    }

    /// The readiness verdict and a short reason for people reading the probe's output
    /// ("ready", "starting", "draining", or each failing check as "name: why", sorted, joined
    /// by "; "). Answers within `checkTimeout` whatever the checks do.
    package func evaluate() async -> (ready: Bool, detail: String) {
        let (phase, checks) = state.withLock { ($0.phase, $0.checks) }
        guard phase == .serving else { return (false, phase.rawValue) }
        let timeout = checkTimeout
        let failures = await withTaskGroup(of: String?.self) { group in
            for check in checks {
                group.addTask {
                    switch await check.outcome(timeout: timeout) {
                    case .passed: nil
                    case .failed(let why): "\(check.name): \(why)"
                    }
                }
            }
            var failures: [String] = []
            for await failure in group {
                if let failure { failures.append(failure) }
            }
            return failures.sorted()
        }
        return failures.isEmpty ? (true, "ready") : (false, failures.joined(separator: "; "))
    }

    /// Evaluates every `interval` until cancelled and hands each change of verdict (and the
    /// first) to `update`: the gRPC health service follows `/readyz` this way.
    package func publish(every interval: Duration = .seconds(1), to update: @Sendable (_ ready: Bool) -> Void) async {
        var published: Bool?
        while !Task.isCancelled {
            let ready = await evaluate().ready
            if ready != published {
                update(ready)
                published = ready
            }
            try? await Task.sleep(for: interval)
        }
    }
}
