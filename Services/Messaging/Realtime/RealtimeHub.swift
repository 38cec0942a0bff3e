import Contracts
import Foundation
import Synchronization

/// This instance's realtime subscribers, fed from the realtime outbox in cursor order by one
/// reader (`RealtimeFeed.follow`), whichever instance wrote the events: every instance reads the
/// same outbox, woken by LISTEN/NOTIFY.
///
/// Each subscriber has a buffer of `capacity` events; one that falls further behind is removed
/// and its stream ends with `subscriberTooSlow` after what it had buffered, so a stalled reader
/// costs at most `capacity` events here.
///
/// `position` is the cursor of the last event dispatched. A subscriber registered at position P
/// receives every event after P from the hub; everything up to P is committed and readable in
/// the outbox, so `RealtimeService` replays (after_cursor, P] from there: nothing is lost between
/// the replay and the live part, and nothing is sent twice.
final class RealtimeHub: Sendable {
    typealias Continuation = AsyncThrowingStream<Realtime.RealtimeEvent, any Error>.Continuation

    /// One subscriber's registration: its live events and the position it started at.
    struct Subscription: Sendable {
        let events: AsyncThrowingStream<Realtime.RealtimeEvent, any Error>
        let position: Int64
        fileprivate let continuation: Continuation

        /// Ends the live events (after what is buffered) with `error`, and leaves the hub.
        func end(throwing error: any Error) { continuation.finish(throwing: error) }
    }

    private struct State {
        var position: Int64
        var subscribers: [UUID: [Int: Continuation]] = [:]
        var nextID = 0
        var count = 0
    }

    let capacity: Int
    private let state: Mutex<State>

    init(position: Int64, capacity: Int) {
        self.capacity = capacity
        state = Mutex(State(position: position))
    }

    /// The cursor of the last event dispatched.
    var position: Int64 { state.withLock { $0.position } }

    /// Subscribers registered now.
    var subscriberCount: Int { state.withLock { $0.count } }

    /// Registers a subscriber for `account`'s events; it stays until its stream is finished,
    /// dropped or cut off.
    func subscribe(_ account: UUID) -> Subscription {
        let (stream, continuation) = AsyncThrowingStream<Realtime.RealtimeEvent, any Error>
            .makeStream(bufferingPolicy: .bufferingOldest(capacity))
        let (id, position) = state.withLock { state -> (Int, Int64) in
            state.nextID += 1
            state.subscribers[account, default: [:]][state.nextID] = continuation
            state.count += 1
            return (state.nextID, state.position)
        }
        continuation.onTermination = { [weak self] _ in self?.remove(account, id) }
        return Subscription(events: stream, position: position, continuation: continuation)
    }

    /// Hands one outbox event (aggregate id: the recipient) to its recipient's subscribers here
    /// and moves the position past it. `decode` runs only when the recipient has a subscriber.
    func dispatch(cursor: Int64, recipient: UUID?,
                  _ decode: () throws -> Realtime.RealtimeEvent?) {
        // Without a subscriber the position moves in the same critical section as the check, so
        // one registering after it starts past this event; with one, the event is decoded
        // outside the lock and handed to whoever is registered when the position moves.
        let skipped = state.withLock { state -> Bool in
            guard let recipient, state.subscribers[recipient] != nil else {
                state.position = max(state.position, cursor)
                return true
            }
            return false
        }
        if skipped { return }
        let event = (try? decode()) ?? nil
        let cutOff = state.withLock { state -> [Continuation] in
            state.position = max(state.position, cursor)
            guard let event, let recipient, let subscribers = state.subscribers[recipient] else { return [] }
            var slow: [Continuation] = []
            for (id, continuation) in subscribers {
                if case .dropped = continuation.yield(event) {
                    slow.append(continuation)
                    state.subscribers[recipient]?[id] = nil
                    state.count -= 1
                }
            }
            if state.subscribers[recipient]?.isEmpty == true { state.subscribers[recipient] = nil }
            return slow
        }
        // Outside the lock: finishing runs onTermination, which takes it.
        for continuation in cutOff { continuation.finish(throwing: MessagingError.subscriberTooSlow) }
    }

    /// Ends every stream (shutdown).
    func close() {
        let all = state.withLock { state -> [Continuation] in
            defer {
                state.subscribers = [:]
                state.count = 0
            }
            return state.subscribers.values.flatMap(\.values)
        }
        for continuation in all { continuation.finish() }
    }

    private func remove(_ account: UUID, _ id: Int) {
        state.withLock { state in
            guard state.subscribers[account]?.removeValue(forKey: id) != nil else { return }
            state.count -= 1
            if state.subscribers[account]?.isEmpty == true { state.subscribers[account] = nil }
        }
    }
}
