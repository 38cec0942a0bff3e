import Foundation

/// How idempotent calls are retried: bounded attempts, exponential backoff with jitter, and a
/// cap on the whole call's time. Which calls are idempotent is each method's `GatewayMethod.Kind`.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included; 1 means no retry.
    public var maxAttempts: Int
    /// The backoff before the first retry.
    public var initialBackoff: Duration
    /// No backoff grows beyond this.
    public var maxBackoff: Duration
    /// Each retry's backoff is the previous one times this.
    public var multiplier: Double
    /// The share of each backoff that is random, from 0 (fixed delays) to 1 (anywhere between
    /// zero and the full backoff): clients that failed together do not retry together.
    public var jitter: Double
    /// All attempts and the waits between them end within this; later attempts get only the
    /// time that is left as their deadline.
    public var maxTotalTime: Duration

    public init(maxAttempts: Int = 4, initialBackoff: Duration = .milliseconds(100), maxBackoff: Duration = .seconds(2),
                multiplier: Double = 2, jitter: Double = 0.5, maxTotalTime: Duration = .seconds(20)) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = max(.zero, initialBackoff)
        self.maxBackoff = max(.zero, maxBackoff)
        self.multiplier = max(1, multiplier)
        self.jitter = min(1, max(0, jitter))
        self.maxTotalTime = max(.zero, maxTotalTime)
    }

    /// One attempt, no retry.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait after failed attempt `attempt` (1-based): `initialBackoff × multiplier^(attempt-1)`,
    /// capped at `maxBackoff`, of which a random share up to `jitter` is taken off.
    /// `random` yields a number in 0...1 (injectable for tests).
    public func backoff(afterAttempt attempt: Int, random: () -> Double = { Double.random(in: 0...1) }) -> Duration {
        let exponent = Double(max(0, attempt - 1))
        let grown = initialBackoff.seconds * pow(multiplier, exponent)
        let capped = min(maxBackoff.seconds, grown)
        let jittered = capped * (1 - jitter * min(1, max(0, random())))
        return .nanoseconds(Int64((jittered * 1e9).rounded()))
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
