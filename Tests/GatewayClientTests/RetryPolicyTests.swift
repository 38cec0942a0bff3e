import GatewayClient
import Testing

/// Backoff arithmetic, without I/O.
@Suite struct RetryPolicyTests {
    @Test func backoff_growsByTheMultiplier_andStopsAtTheCap() {
        let policy = RetryPolicy(initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(700), multiplier: 2, jitter: 0)
        let waits = (1...5).map { policy.backoff(afterAttempt: $0) }
        #expect(waits == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(700), .milliseconds(700)])
    }

    @Test(arguments: [0.0, 0.25, 0.5, 1.0])
    func backoff_jitterTakesOffAtMostItsShare(_ random: Double) {
        let policy = RetryPolicy(initialBackoff: .milliseconds(400), jitter: 0.5)
        let wait = policy.backoff(afterAttempt: 1, random: { random })
        #expect(wait == .milliseconds(400 - Int64(200 * random)))
    }

    @Test func backoff_randomJitter_staysWithinBounds_andVaries() {
        let policy = RetryPolicy(initialBackoff: .seconds(1), maxBackoff: .seconds(1), jitter: 1)
        let waits = (0..<200).map { _ in policy.backoff(afterAttempt: 3) }
        #expect(waits.allSatisfy { $0 >= .zero && $0 <= .seconds(1) })
        #expect(Set(waits).count > 100)
    }

    @Test func init_clampsNonsense() {
        let policy = RetryPolicy(maxAttempts: 0, initialBackoff: .seconds(-1), multiplier: 0.1, jitter: 7)
        #expect(policy.maxAttempts == 1)
        #expect(policy.initialBackoff == .zero)
        #expect(policy.multiplier == 1)
        #expect(policy.jitter == 1)
        #expect(RetryPolicy.none.maxAttempts == 1)
    }
}
