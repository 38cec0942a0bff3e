package import Postgres
import Synchronization

/// Wakes event-stream watchers when an outbox commits: one LISTEN connection per process,
/// fanned out to any number of waiters through a generation counter.
package final class OutboxNotifier: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())
    private let listener: PostgresListener
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts listening on `channel`. A dropped LISTEN connection reconnects by itself; its
    /// `.reconnected` signal also wakes watchers, who then re-read what they may have missed.
    package init(configuration: PostgresConfiguration, channel: String) async throws {
        listener = PostgresListener(configuration: configuration)
        let events = try await listener.listen(channel)
        let task = Task { [weak self] in
            for await _ in events {
                self?.bump()
            }
        }
        self.task.withLock { $0 = task }
    }

    /// The current generation; pass it to `wait(after:timeout:)` after reading.
    package var generation: UInt64 { state.withLock { $0.generation } }

    /// Returns once the generation moved past `seen`, after `timeout`, or on cancellation.
    package func wait(after seen: UInt64, timeout: Duration) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.resume(id)
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.generation > seen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            resume(id)
        }
    }

    package func close() {
        task.withLock { $0?.cancel() }
        listener.close()
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    private func resume(_ id: Int) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.resume()
    }

    private func bump() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in ready { waiter.resume() }
    }
}
