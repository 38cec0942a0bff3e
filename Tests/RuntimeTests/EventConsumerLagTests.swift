import Runtime
import Synchronization
import Testing

/// `event_consumer_lag_seconds` as a consumer's life moves it: what an on-call engineer reads.
@Suite struct EventConsumerLagTests {
    /// A clock the test moves, in microseconds.
    final class ManualClock: Sendable {
        let now = Atomic<Int64>(1_000_000_000_000_000)
        func advance(seconds: Double) { now.add(Int64(seconds * 1_000_000), ordering: .relaxed) }
        var read: @Sendable () -> Int64 { { [self] in self.now.load(ordering: .relaxed) } }
    }

    @Test func aConsumerThatNeverReachesItsProducer_fallsFurtherBehind() {
        let clock = ManualClock()
        let lag = EventConsumerLag(clock: clock.read)
        clock.advance(seconds: 30)
        lag.disconnected()
        clock.advance(seconds: 30)
        #expect(lag.seconds == 60)
    }

    @Test func aConsumerWaitingOnALiveStream_hasNoLag_howeverLongItIsIdle() {
        let clock = ManualClock()
        let lag = EventConsumerLag(clock: clock.read)
        lag.waiting()
        clock.advance(seconds: 3_600)
        #expect(lag.seconds == 0)
    }

    @Test func aBacklog_showsTheAgeOfTheOldestEventNotYetApplied_thenShrinksAsBatchesApply() {
        let clock = ManualClock()
        let lag = EventConsumerLag(clock: clock.read)
        let start = clock.read()
        lag.waiting()
        // A backlog from 10 minutes ago arrives; while its first batch applies, lag is 10 min.
        lag.received(oldest: start - 600_000_000)
        #expect(lag.seconds == 600)
        // The batch applied reached events of 2 minutes ago; the next batch, from 119 s ago, is in hand.
        lag.applied(newest: start - 120_000_000)
        lag.waiting()
        lag.received(oldest: start - 119_000_000)
        #expect(lag.seconds == 119)
        // An event it cannot apply: lag keeps growing while it retries.
        clock.advance(seconds: 60)
        #expect(lag.seconds == 179)
        lag.applied(newest: start)
        lag.waiting()
        #expect(lag.seconds == 0)
    }

    @Test func aStreamThatBreaksWhileUpToDate_growsFromTheBreak_notFromTheLastEvent() {
        let clock = ManualClock()
        let lag = EventConsumerLag(clock: clock.read)
        lag.waiting()
        clock.advance(seconds: 3_600)
        lag.disconnected()
        clock.advance(seconds: 5)
        #expect(lag.seconds == 5)
        // Reconnected with nothing missed.
        lag.waiting()
        #expect(lag.seconds == 0)
    }

    @Test func anEventStampedInTheFuture_byAProducerWhoseClockIsAhead_countsAsNow() {
        let clock = ManualClock()
        let lag = EventConsumerLag(clock: clock.read)
        lag.waiting()
        lag.received(oldest: clock.read() + 5_000_000)
        #expect(lag.seconds == 0)
        clock.advance(seconds: 2)
        #expect(lag.seconds == 2)
    }
}
