@testable import Runtime
import Testing

/// `ConsumerLag`'s transitions without I/O: times are Unix microseconds given by the test.
@Suite struct ConsumerLagTests {
    static let second: Int64 = 1_000_000
    static let t0: Int64 = 1_700_000_000 * second

    @Test func beforeTheFirstConnection_isBehindSinceStartUp() {
        let lag = ConsumerLag(now: Self.t0)
        #expect(lag.seconds(now: Self.t0 + 5 * Self.second) == 5)
    }

    @Test func aStreamThatStaysOpen_isCurrentAfterSettling() {
        let lag = ConsumerLag(now: Self.t0, settle: .seconds(1))
        lag.opened(now: Self.t0 + 2 * Self.second)
        // Not settled yet: still behind since start-up.
        #expect(lag.seconds(now: Self.t0 + 2 * Self.second + Self.second / 2) == 2.5)
        #expect(lag.seconds(now: Self.t0 + 3 * Self.second) == 0)
    }

    @Test func aProducerRefusingEveryCall_staysBehindSinceTheFirstFailure() {
        let lag = ConsumerLag(now: Self.t0, settle: .seconds(1))
        for attempt in 0..<10 {
            let at = Self.t0 + Int64(attempt) * Self.second / 5
            lag.opened(now: at)
            lag.failed(now: at + 1000)
        }
        #expect(lag.seconds(now: Self.t0 + 30 * Self.second) == 30)
    }

    @Test func eventsWaiting_countFromTheOldestUnapplied_untilAppliedAndDrained() {
        let lag = ConsumerLag(now: Self.t0)
        lag.opened(now: Self.t0)
        #expect(lag.seconds(now: Self.t0 + 2 * Self.second) == 0)
        // A batch of history: the oldest occurred 60 s ago.
        lag.received(oldest: Self.t0 - 58 * Self.second, now: Self.t0 + 2 * Self.second)
        #expect(lag.seconds(now: Self.t0 + 3 * Self.second) == 61)
        // A full batch applied: more wait, no older than the last applied one.
        lag.applied(more: true, newest: Self.t0 - 10 * Self.second, now: Self.t0 + 3 * Self.second)
        #expect(lag.seconds(now: Self.t0 + 3 * Self.second) == 13)
        lag.received(oldest: Self.t0 - 9 * Self.second, now: Self.t0 + 3 * Self.second)
        lag.applied(more: false, newest: Self.t0, now: Self.t0 + 4 * Self.second)
        #expect(lag.seconds(now: Self.t0 + 10 * Self.second) == 0)
    }

    @Test func aBrokenStream_isBehindSinceItBroke_andBacklogOlderThanThatCounts() {
        let lag = ConsumerLag(now: Self.t0)
        lag.opened(now: Self.t0)
        lag.failed(now: Self.t0 + 10 * Self.second)
        #expect(lag.seconds(now: Self.t0 + 15 * Self.second) == 5)
        // Reconnected: what waited since before the break keeps the earlier instant.
        lag.opened(now: Self.t0 + 20 * Self.second)
        lag.received(oldest: Self.t0 + 12 * Self.second, now: Self.t0 + 20 * Self.second)
        #expect(lag.seconds(now: Self.t0 + 21 * Self.second) == 11)
    }

    @Test func aProducerClockAhead_neverMakesTheLagNegative() {
        let lag = ConsumerLag(now: Self.t0)
        lag.opened(now: Self.t0)
        lag.received(oldest: Self.t0 + 30 * Self.second, now: Self.t0 + 2 * Self.second)
        #expect(lag.seconds(now: Self.t0 + 2 * Self.second) == 0)
    }
}
