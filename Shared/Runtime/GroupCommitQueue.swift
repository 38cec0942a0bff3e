import IOLoop
import Postgres
import Synchronization

/// Group commit: writes arriving while others are being stored wait and go together in the next
/// transaction, so a burst of N concurrent writes costs a few transactions (a few WAL flushes and
/// round trips) rather than N. A write is answered only after its batch committed, so an
/// acknowledged write is as durable as when each was a transaction of its own. Messaging's sends
/// (`MessageSendStore`), discovery's swipes (`SwipeStore`), and identity's anonymous sign-ins and
/// owners' profile updates go through one each, and single reads (`BatchedReads`) too: one round
/// trip for the statements of many calls.
///
/// At most `maxRunning` batches of a lane are stored at once, each of at most `maxBatch` items,
/// taken in arrival order (`Lanes`: one lane for every caller, or one per event loop). An idle
/// queue stores a lone item at once: batching adds no wait, it only gathers what arrived while
/// the database was busy. The runners are tasks of the queue, not of any one call: a batch
/// serves many calls.
package final class GroupCommitQueue<Item: Sendable, Outcome: Sendable>: Sendable {
    /// Stores one batch in one transaction and answers each item, in order.
    package typealias Store = @Sendable ([Item]) async throws -> [Outcome]

    /// Unsafe, not checked: `store(_:)` resumes every waiting item exactly once (each of a failed
    /// batch alone, a mismatched answer failing the batch), and a checked continuation cost every
    /// read an allocation and, copied or destroyed in the queue's arrays, a lookup of its generic
    /// type's metadata (about 2,000 instructions a read).
    private struct Waiting {
        var item: Item
        var continuation: UnsafeContinuation<Outcome, any Error>
    }

    /// Where a caller's item waits: one lane for every caller, or one per event loop.
    package enum Lanes: Sendable {
        /// Every caller's items go in one queue: the largest batches, but a runner answers
        /// callers on other loops, each answer a wakeup of that loop's thread.
        case shared
        /// A caller on an event loop queues with that loop's other callers, and its lane's
        /// runners run on that loop: batch, connection and answers stay on one thread. Callers
        /// on no loop share one lane.
        case perEventLoop
    }

    private struct Lane {
        /// nil: callers on no event loop (or every caller, with `.shared`).
        let loop: EventLoop?
        var waiting: [Waiting] = []
        var running = 0
    }

    private struct State {
        var lanes: [Lane] = []

        /// The lane of `loop`'s callers, made on first use; a process has a few loops.
        mutating func lane(of loop: EventLoop?) -> Int {
            if let index = lanes.firstIndex(where: { $0.loop === loop }) { return index }
            lanes.append(Lane(loop: loop))
            return lanes.count - 1
        }

        /// The next batch of a runner of `lane`; when there is none the runner stops.
        mutating func nextBatch(lane: Int, max: Int) -> [Waiting] {
            let batch = Array(lanes[lane].waiting.prefix(max))
            lanes[lane].waiting.removeFirst(batch.count)
            if batch.isEmpty { lanes[lane].running -= 1 }
            return batch
        }
    }

    package let maxBatch: Int
    /// Per lane.
    package let maxRunning: Int
    package let lanes: Lanes
    private let store: Store
    private let state = Mutex(State())

    /// `store` stores one batch in one transaction and answers each item, in order.
    package init(maxBatch: Int = 128, maxRunning: Int = 3, lanes: Lanes = .shared, store: @escaping Store) {
        self.maxBatch = maxBatch
        self.maxRunning = maxRunning
        self.lanes = lanes
        self.store = store
    }

    /// Stores `item` with whatever else is waiting; returns once its transaction committed.
    ///
    /// `@_specialize` here and below: reads (`BatchedReads`) run on every DB-backed call, and the
    /// generic body looked up the metadata of its continuations and items on each (6,000-11,000
    /// instructions a call); the specialized body is the one they take.
    @_specialize(where Item == PostgresStatement, Outcome == PostgresRows)
    nonisolated(nonsending) package func submit(_ item: Item) async throws -> Outcome {
        let loop = EventLoop.current
        return try await withUnsafeThrowingContinuation { continuation in
            let startRunner = state.withLock { state -> Int? in
                let lane = state.lane(of: lanes == .shared ? nil : loop)
                state.lanes[lane].waiting.append(Waiting(item: item, continuation: continuation))
                guard state.lanes[lane].running < maxRunning else { return nil }
                state.lanes[lane].running += 1
                return lane
            }
            // On the caller's event loop when it has one: the runner then takes that loop's
            // pooled connections and answers the loop's callers with no hop between threads.
            // Detached: a child task would inherit the task-locals of the call that started it,
            // its trace among them, and put every batch the runner stores into that one trace.
            if let lane = startRunner { Task.detached(executorPreference: loop) { await self.run(lane: lane) } }
        }
    }

    @_specialize(where Item == PostgresStatement, Outcome == PostgresRows)
    nonisolated(nonsending) private func run(lane: Int) async {
        while true {
            let batch = state.withLock { $0.nextBatch(lane: lane, max: maxBatch) }
            if batch.isEmpty { return }
            await store(batch)
        }
    }

    /// Stores `batch` and answers its items. When the batch fails, each item is tried alone, so
    /// one item's failure is its own (and a deadlock between two batches costs a retry, not an
    /// error). An item whose batch did commit after all, its answer lost with the connection, is
    /// then stored again: each store says what that does (a send or a swipe finds itself a
    /// replay; an anonymous sign-in makes another account). A store answering a different number
    /// of items than it was given fails the batch, so no caller waits for an answer forever.
    @_specialize(where Item == PostgresStatement, Outcome == PostgresRows)
    nonisolated(nonsending) private func store(_ batch: [Waiting]) async {
        do {
            let outcomes = try await store(batch.map(\.item))
            guard outcomes.count == batch.count else { throw MismatchedAnswers(items: batch.count, outcomes: outcomes.count) }
            for (waiting, outcome) in zip(batch, outcomes) { waiting.continuation.resume(returning: outcome) }
        } catch {
            guard batch.count > 1 else { return batch[0].continuation.resume(throwing: error) }
            for waiting in batch { await store([waiting]) }
        }
    }

    /// A store's answer that does not match its batch item for item.
    package struct MismatchedAnswers: Error, CustomStringConvertible {
        package var items: Int
        package var outcomes: Int
        package var description: String { "a group commit's store answered \(outcomes) of \(items) items" }
    }
}
