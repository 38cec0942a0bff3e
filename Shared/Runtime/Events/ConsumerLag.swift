#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// How far an `EventConsumer` is behind its producer, in seconds of wall-clock time: since the
/// oldest event it has received and not yet applied occurred (the producer's `occurred_at`),
/// or, while its stream is down, since it went down (since start-up before the first
/// connection), whichever is earlier. Zero while the stream is open and everything it
/// delivered has been applied.
///
/// Cursors are transaction ids, not counts, so the lag is not a number of events; and a
/// consumer that cannot reach its producer cannot know how many events wait there, but it does
/// know since when it has not been current. A stream just reopened counts as current once it
/// has stayed open `settle` without an error: the producer sends its backlog at once, and a
/// producer that refuses the call (credential, database down) answers within milliseconds, so
/// a consumer reconnecting in a loop stays behind since its first failure.
package final class ConsumerLag: Sendable {
    /// How long a reopened stream must stay open without delivering or failing to count as current.
    package let settle: Duration

    private enum State: Equatable {
        /// The stream is open and everything received has been applied.
        case current
        /// Behind since this instant (Unix microseconds).
        case behind(since: Int64)
        /// Was behind since `since`; the stream reopened at `openedAt`.
        case reopened(since: Int64, openedAt: Int64)
    }

    private let state: Mutex<State>

    /// Behind since `now`: the consumer has not been current yet.
    package init(now: Int64 = ConsumerLag.now(), settle: Duration = .seconds(1)) {
        self.state = Mutex(.behind(since: now))
        self.settle = settle
    }

    /// The stream to the producer was opened (the request is sent).
    package func opened(now: Int64 = ConsumerLag.now()) {
        state.withLock { state in
            switch state {
            case .current: break
            case .behind(let since), .reopened(let since, _): state = .reopened(since: since, openedAt: now)
            }
        }
    }

    /// Events arrived; `oldest` is when the oldest of them occurred (Unix microseconds).
    package func received(oldest: Int64, now: Int64 = ConsumerLag.now()) {
        let occurred = min(oldest, now)
        state.withLock { state in
            switch state {
            case .current:
                state = .behind(since: occurred)
            case .behind(let since):
                state = .behind(since: min(since, occurred))
            case .reopened(let since, let openedAt):
                state = .behind(since: isSettled(openedAt, now: now) ? occurred : min(since, occurred))
            }
        }
    }

    /// The events received were applied. `more`: the batch was as large as the consumer takes at
    /// once, so others probably wait in the stream; they occurred no earlier than `newest`, the
    /// last applied event's time.
    package func applied(more: Bool, newest: Int64, now: Int64 = ConsumerLag.now()) {
        state.withLock { $0 = more ? .behind(since: min(newest, now)) : .current }
    }

    /// The stream broke (or could not be opened).
    package func failed(now: Int64 = ConsumerLag.now()) {
        state.withLock { state in
            switch state {
            case .current:
                state = .behind(since: now)
            case .behind:
                break
            case .reopened(let since, let openedAt):
                state = .behind(since: isSettled(openedAt, now: now) ? now : since)
            }
        }
    }

    /// The lag at `now`, in seconds.
    package func seconds(now: Int64 = ConsumerLag.now()) -> Double {
        let since: Int64? = state.withLock { state in
            switch state {
            case .current: nil
            case .behind(let since): since
            case .reopened(let since, let openedAt): isSettled(openedAt, now: now) ? nil : since
            }
        }
        guard let since else { return 0 }
        return Double(max(0, now - since)) / 1_000_000
    }

    private func isSettled(_ openedAt: Int64, now: Int64) -> Bool {
        let (seconds, attoseconds) = settle.components
        return now - openedAt >= seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// The wall clock in Unix microseconds (the producer stamps `occurred_at` with its own).
    package static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1000
    }
}
