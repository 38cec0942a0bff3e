import Synchronization

/// Group commit for `SendMessage`: sends arriving while others are being stored wait and go
/// together in the next transaction (`MessageSendStore`), so a burst of N concurrent sends
/// costs a few transactions (a few WAL flushes and round trips) rather than N. A send is
/// answered only after its batch committed, so an acknowledged message is as durable as when
/// each send was a transaction of its own.
///
/// At most `maxRunning` batches are stored at once, each of at most `maxBatch` sends, taken in
/// arrival order. An idle queue stores a lone send at once: batching adds no wait, it only
/// gathers what arrived while the database was busy. The runners are tasks of the queue, not
/// of any one call: a batch serves many calls.
final class MessageSendQueue: Sendable {
    typealias Store = @Sendable ([MessageSend]) async throws -> [MessageSend.Outcome]

    private struct Waiting {
        var send: MessageSend
        var continuation: CheckedContinuation<MessageSend.Outcome, any Error>
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

    let maxBatch: Int
    let maxRunning: Int
    private let store: Store
    private let state = Mutex(State())

    /// `store` stores one batch in one transaction and answers each send, in order.
    init(maxBatch: Int = 128, maxRunning: Int = 3, store: @escaping Store) {
        self.maxBatch = maxBatch
        self.maxRunning = maxRunning
        self.store = store
    }

    /// Stores `send` with whatever else is waiting; returns once its transaction committed.
    func send(_ send: MessageSend) async throws -> MessageSend.Outcome {
        try await withCheckedThrowingContinuation { continuation in
            let startRunner = state.withLock { state -> Bool in
                state.waiting.append(Waiting(send: send, continuation: continuation))
                guard state.running < maxRunning else { return false }
                state.running += 1
                return true
            }
            if startRunner { Task { await self.run() } }
        }
    }

    private func run() async {
        while true {
            let batch = state.withLock { $0.nextBatch(max: maxBatch) }
            if batch.isEmpty { return }
            await store(batch)
        }
    }

    /// Stores `batch` and answers its sends. When the batch fails, each send is tried alone, so
    /// one send's failure is its own (a send whose batch did commit after all, its answer lost
    /// with the connection, then finds itself a replay).
    private func store(_ batch: [Waiting]) async {
        do {
            let outcomes = try await store(batch.map(\.send))
            for (waiting, outcome) in zip(batch, outcomes) { waiting.continuation.resume(returning: outcome) }
        } catch {
            guard batch.count > 1 else { return batch[0].continuation.resume(throwing: error) }
            for waiting in batch { await store([waiting]) }
        }
    }
}
