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
/// At most `maxRunning` batches are stored at once, each of at most `maxBatch` items, taken in
/// arrival order. An idle queue stores a lone item at once: batching adds no wait, it only
/// gathers what arrived while the database was busy. The runners are tasks of the queue, not
/// of any one call: a batch serves many calls.
package final class GroupCommitQueue<Item: Sendable, Outcome: Sendable>: Sendable {
    /// Stores one batch in one transaction and answers each item, in order.
    package typealias Store = @Sendable ([Item]) async throws -> [Outcome]

    private struct Waiting {
        var item: Item
        var continuation: CheckedContinuation<Outcome, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var running = 0

        /// The next batch of a runner; when there is none the runner stops.
        mutating func nextBatch(max: Int) -> [Waiting] {
            let batch = Array(waiting.prefix(max))
            waiting.removeFirst(batch.count)
            if batch.isEmpty { running -= 1 }
            return batch
        }
    }

    package let maxBatch: Int
    package let maxRunning: Int
    private let store: Store
    private let state = Mutex(State())

    /// `store` stores one batch in one transaction and answers each item, in order.
    package init(maxBatch: Int = 128, maxRunning: Int = 3, store: @escaping Store) {
        self.maxBatch = maxBatch
        self.maxRunning = maxRunning
        self.store = store
    }

    /// Stores `item` with whatever else is waiting; returns once its transaction committed.
    ///
    /// `@_specialize` here and below: reads (`BatchedReads`) run on every DB-backed call, and the
    /// generic body looked up the metadata of its continuations and items on each (6,000-11,000
    /// instructions a call); the specialized body is the one they take.
    @_specialize(where Item == PostgresStatement, Outcome == PostgresRows)
    package func submit(_ item: Item) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            let startRunner = state.withLock { state -> Bool in
                state.waiting.append(Waiting(item: item, continuation: continuation))
                guard state.running < maxRunning else { return false }
                state.running += 1
                return true
            }
            // On the caller's event loop when it has one: the runner then takes that loop's
            // pooled connections and answers the loop's callers with no hop between threads.
            // Detached: a child task would inherit the task-locals of the call that started it,
            // its trace among them, and put every batch the runner stores into that one trace.
            if startRunner { Task.detached(executorPreference: EventLoop.current) { await self.run() } }
        }
    }

    @_specialize(where Item == PostgresStatement, Outcome == PostgresRows)
    private func run() async {
        while true {
            let batch = state.withLock { $0.nextBatch(max: maxBatch) }
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
    private func store(_ batch: [Waiting]) async {
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
