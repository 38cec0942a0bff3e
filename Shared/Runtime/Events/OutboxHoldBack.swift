import IOLoop
import Synchronization

/// How long committed events of one outbox have been held back from its watchers by a
/// transaction still open in the cluster (`outbox_held_back_seconds`).
///
/// Watchers read the outbox directly, so nothing queues between a commit and its delivery but
/// this: an event is served only once every transaction with an older id has ended (see
/// `Outbox`), so one transaction left open anywhere in the cluster stalls every stream behind
/// it. Each `WatchEvents` reports after every read whether committed events wait behind the
/// horizon; the gauge is the longest such wait among the watchers now, 0 when none waits.
package final class OutboxHoldBack: Sendable {
    private struct State {
        /// Watchers now held back, and since when (monotonic nanoseconds).
        var since: [Int: UInt64] = [:]
        var nextWatcher = 0
    }

    private let state = Mutex(State())
    private let clock: @Sendable () -> UInt64

    /// `clock` gives monotonic nanoseconds.
    package init(clock: @escaping @Sendable () -> UInt64 = { MonotonicClock.nanoseconds() }) {
        self.clock = clock
    }

    /// A new watcher's id, for `read(_:heldBack:)` and `remove(_:)`.
    package func makeWatcher() -> Int {
        state.withLock { state in
            state.nextWatcher += 1
            return state.nextWatcher
        }
    }

    /// What `watcher`'s latest read found: committed events held back, or none.
    package func read(_ watcher: Int, heldBack: Bool) {
        let now = clock()
        state.withLock { state in
            if !heldBack {
                state.since[watcher] = nil
            } else if state.since[watcher] == nil {
                state.since[watcher] = now
            }
        }
    }

    /// `watcher` stopped watching.
    package func remove(_ watcher: Int) {
        _ = state.withLock { $0.since.removeValue(forKey: watcher) }
    }

    /// The longest any watcher has been held back, in seconds; 0 when none is.
    package var seconds: Double {
        let now = clock()
        let oldest = state.withLock { $0.since.values.min() }
        guard let oldest, now > oldest else { return 0 }
        return Double(now - oldest) / 1_000_000_000
    }
}
