import Synchronization

/// Whether the service should receive traffic: `/readyz` answers 200 only while the gRPC server
/// is serving and every registered check passes.
package final class Readiness: Sendable {
    /// Where the process is in its life.
    package enum Phase: String, Sendable {
        case starting
        case serving
        case draining
    }

    /// A named check, e.g. "postgres": throws (or times out) when the dependency is unusable.
    package typealias Check = @Sendable () async throws -> Void

    private struct State {
        var phase = Phase.starting
        var checks: [(name: String, check: Check)] = []
    }

    private let state = Mutex(State())
    /// How long one check may take before it counts as failed.
    package let checkTimeout: Duration

    /// Starts in `.starting`, with no checks.
    package init(checkTimeout: Duration = .seconds(2)) {
        self.checkTimeout = checkTimeout
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

    /// Adds a check consulted by every `/readyz` while serving.
    package func addCheck(_ name: String, _ check: @escaping Check) {
        state.withLock { $0.checks.append((name, check)) }
    }

    /// The readiness verdict and a short reason for people reading the probe's output.
    package func evaluate() async -> (ready: Bool, detail: String) {
        let (phase, checks) = state.withLock { ($0.phase, $0.checks) }
        guard phase == .serving else { return (false, phase.rawValue) }
        let timeout = checkTimeout
        let failures = await withTaskGroup(of: String?.self) { group in
            for (name, check) in checks {
                group.addTask { await Self.run(name, check, timeout: timeout) }
            }
            var failures: [String] = []
            for await failure in group {
                if let failure { failures.append(failure) }
            }
            return failures.sorted()
        }
        return failures.isEmpty ? (true, "ready") : (false, failures.joined(separator: "; "))
    }

    /// nil when the check passed, else "name: why".
    private static func run(_ name: String, _ check: @escaping Check, timeout: Duration) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    try await check()
                    return nil
                } catch {
                    return "\(name): \(error)"
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return "\(name): timed out"
            }
            // Safe: two tasks were added, so the first result exists.
            let first = await group.next()!
            group.cancelAll()
            return first
        }
    }
}
