import Runtime
import Synchronization
import Testing

/// `outbox_held_back_seconds` as watchers report their reads: what an on-call engineer reads
/// while a transaction left open stalls delivery.
@Suite struct OutboxHoldBackTests {
    final class ManualClock: Sendable {
        let now = Atomic<UInt64>(1_000_000_000_000)
        func advance(seconds: Double) { now.add(UInt64(seconds * 1_000_000_000), ordering: .relaxed) }
        var read: @Sendable () -> UInt64 { { [self] in self.now.load(ordering: .relaxed) } }
    }

    @Test func theLongestWaitingWatcher_setsTheGauge_untilItsEventsArrive() {
        let clock = ManualClock()
        let holdBack = OutboxHoldBack(clock: clock.read)
        let first = holdBack.makeWatcher(), second = holdBack.makeWatcher()
        holdBack.read(first, heldBack: true)
        clock.advance(seconds: 10)
        holdBack.read(second, heldBack: true)
        // Re-reads while still held back keep the first time.
        holdBack.read(first, heldBack: true)
        clock.advance(seconds: 5)
        #expect(holdBack.seconds == 15)
        holdBack.read(first, heldBack: false)
        #expect(holdBack.seconds == 5)
        holdBack.remove(second)
        #expect(holdBack.seconds == 0)
    }

    @Test func watchersThatFindNothingHeldBack_reportNoWait() {
        let clock = ManualClock()
        let holdBack = OutboxHoldBack(clock: clock.read)
        let watcher = holdBack.makeWatcher()
        holdBack.read(watcher, heldBack: false)
        clock.advance(seconds: 60)
        #expect(holdBack.seconds == 0)
    }
}
