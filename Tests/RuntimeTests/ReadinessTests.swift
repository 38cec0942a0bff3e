@testable import Runtime
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
}
