@testable import Runtime
import Synchronization
import Testing

@Suite struct ReadinessTests {
    @Test func phases_startingServingDraining() async {
        let readiness = Readiness()
        #expect(await readiness.evaluate() == (false, "starting"))
        readiness.markServing()
        #expect(await readiness.evaluate() == (true, "ready"))
        readiness.markDraining()
        readiness.markServing()
        #expect(await readiness.evaluate() == (false, "draining"))
    }

    @Test func slowCheck_timesOut() async {
        let readiness = Readiness(checkTimeout: .milliseconds(50))
        readiness.markServing()
        readiness.addCheck("ok") {}
        readiness.addCheck("stuck") { try await Task.sleep(for: .seconds(30)) }
        let clock = ContinuousClock()
        let start = clock.now
        let result = await readiness.evaluate()
        #expect(result == (false, "stuck: timed out"))
        #expect(clock.now - start < .seconds(5))
    }

    /// A check blocked where cancellation cannot reach it (libpq's connect on its thread) must
    /// not hold the probe: the probe answers at the timeout, and probes after it at once.
    @Test func checkIgnoringCancellation_stillAnswersAtTheTimeout_andLaterProbesAtOnce() async {
        let readiness = Readiness(checkTimeout: .milliseconds(200))
        readiness.markServing()
        let gate = Gate()
        readiness.addCheck("postgres") { await gate.wait() }
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await readiness.evaluate() == (false, "postgres: timed out"))
        let first = clock.now - start
        #expect(first >= .milliseconds(200) && first < .seconds(2), "first probe took \(first)")
        let again = clock.now
        #expect(await readiness.evaluate() == (false, "postgres: timed out"))
        #expect(clock.now - again < .milliseconds(100), "a probe after the timeout waited \(clock.now - again)")
        gate.open()
        try? await Task.sleep(for: .milliseconds(50))
        #expect(await readiness.evaluate() == (true, "ready"))
    }

    @Test func probesWithinMaxAge_shareOneRunOfTheCheck() async throws {
        let readiness = Readiness(maxAge: .milliseconds(300))
        readiness.markServing()
        let runs = Atomic<Int>(0)
        readiness.addCheck("postgres") {
            runs.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(20))
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { _ = await readiness.evaluate() } }
        }
        #expect(await readiness.evaluate().ready)
        #expect(runs.load(ordering: .relaxed) == 1)
        try await Task.sleep(for: .milliseconds(350))
        #expect(await readiness.evaluate().ready)
        #expect(runs.load(ordering: .relaxed) == 2)
    }

    @Test func failingCheck_recoversAfterMaxAge() async throws {
        let readiness = Readiness(maxAge: .milliseconds(100))
        readiness.markServing()
        let down = Atomic<Bool>(true)
        readiness.addCheck("postgres") { if down.load(ordering: .relaxed) { throw ReadinessFailure("unreachable (connectionFailed)") } }
        #expect(await readiness.evaluate() == (false, "postgres: unreachable (connectionFailed)"))
        down.store(false, ordering: .relaxed)
        #expect(await readiness.evaluate() == (false, "postgres: unreachable (connectionFailed)"))
        try await Task.sleep(for: .milliseconds(150))
        #expect(await readiness.evaluate() == (true, "ready"))
    }

    @Test func publish_handsOverTheFirstVerdictAndEachChange() async throws {
        let readiness = Readiness(maxAge: .zero)
        readiness.markServing()
        let down = Atomic<Bool>(false)
        readiness.addCheck("postgres") { if down.load(ordering: .relaxed) { throw ReadinessFailure("unreachable") } }
        let published = Mutex<[Bool]>([])
        let publisher = Task { await readiness.publish(every: .milliseconds(10)) { ready in published.withLock { $0.append(ready) } } }
        try await Task.sleep(for: .milliseconds(100))
        down.store(true, ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(100))
        down.store(false, ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(100))
        publisher.cancel()
        await publisher.value
        #expect(published.withLock { $0 } == [true, false, true])
    }
}

/// A wait that ignores task cancellation until `open`.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
