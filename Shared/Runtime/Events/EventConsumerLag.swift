#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// How far behind its producer an `EventConsumer` is, in seconds: `event_consumer_lag_seconds`.
///
/// The consumer cannot see the producer's newest event, so lag is measured from what it knows:
/// 0 while it waits on a live stream with nothing left to apply (the producer sends each event
/// as its transaction commits); while it holds events, the age of the oldest one not yet
/// applied; while the stream is broken, the time since it was last known up to date. So a
/// consumer catching up on a backlog, one stuck on an event it cannot apply and one cut off
/// from its producer all show a lag that grows, and an idle one shows none.
package final class EventConsumerLag: Sendable {
    private enum State {
        /// Started at `since` (microseconds since the epoch), no event received yet.
        case starting(since: Int64)
        /// On a live stream, everything received applied.
        case waiting
        /// Every event that occurred before `appliedThrough` (microseconds since the epoch) is
        /// applied; later ones may not be.
        case behind(appliedThrough: Int64)
    }

    private let state: Mutex<State>
    private let clock: @Sendable () -> Int64

    /// Behind since now until the consumer first receives or waits on its stream; `clock` gives the time in
    /// microseconds since the epoch (the wall clock: events carry their producer's wall time).
    package init(clock: @escaping @Sendable () -> Int64 = EventConsumerLag.wallClockMicroseconds) {
        self.clock = clock
        self.state = Mutex(.starting(since: clock()))
    }

    /// The consumer waits on a live stream for the next events, having applied all it received.
    package func waiting() {
        state.withLock { $0 = .waiting }
    }

    /// Events arrived, the oldest having occurred at `oldest` (microseconds since the epoch; nil
    /// when the producer did not say: now).
    package func received(oldest: Int64?) {
        let now = clock()
        let oldest = oldest ?? now
        state.withLock { state in
            switch state {
            case .waiting, .starting: state = .behind(appliedThrough: min(oldest, now))
            case .behind(let through): state = .behind(appliedThrough: max(through, min(oldest, now)))
            }
        }
    }

    /// Events up to one that occurred at `newest` are applied (nil: the producer did not say when).
    package func applied(newest: Int64?) {
        guard let newest else { return }
        state.withLock { state in
            if case .behind(let through) = state { state = .behind(appliedThrough: max(through, newest)) }
        }
    }

    /// The stream broke or ended: lag grows from now if the consumer was up to date.
    package func disconnected() {
        let now = clock()
        state.withLock { state in
            if case .waiting = state { state = .behind(appliedThrough: now) }
        }
    }

    /// The lag now, in seconds.
    package var seconds: Double {
        let now = clock()
        return state.withLock { state in
            switch state {
            case .waiting: 0
            case .starting(let through), .behind(let through): Double(max(0, now - through)) / 1_000_000
            }
        }
    }

    /// The wall clock in microseconds since the epoch.
    package static func wallClockMicroseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1_000
    }
}
