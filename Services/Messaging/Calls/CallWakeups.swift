import Foundation
import Postgres
import Synchronization

/// Wakes this instance's call streams when their call changed, on any instance: one LISTEN
/// connection on `CallStore.channel`, whose notifications carry the call's id. Each watched call
/// has a generation; a stream reads it, reads the call, and waits for it to move. A reconnected
/// listener (notifications may have been missed) moves every generation.
final class CallWakeups: Sendable {
    private struct Entry {
        var generation: UInt64 = 0
        var watchers = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private struct State {
        var entries: [UUID: Entry] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())
    private let listener: PostgresListener
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(configuration: PostgresConfiguration) async throws {
        listener = PostgresListener(configuration: configuration)
        let events = try await listener.listen(CallStore.channel)
        task.withLock {
            $0 = Task { [weak self] in
                for await event in events {
                    switch event {
                    case .notification(let notification):
                        if let id = UUID(uuidString: notification.payload) { self?.bump(id) }
                    case .reconnected:
                        self?.bumpAll()
                    }
                }
            }
        }
    }

    /// Registers interest in call `id` until `unwatch`.
    func watch(_ id: UUID) {
        state.withLock { $0.entries[id, default: Entry()].watchers += 1 }
    }

    func unwatch(_ id: UUID) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard var entry = state.entries[id] else { return [] }
            entry.watchers -= 1
            if entry.watchers > 0 {
                state.entries[id] = entry
                return []
            }
            state.entries[id] = nil
            return Array(entry.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Call `id`'s generation; pass it to `wait` after reading the call.
    func generation(of id: UUID) -> UInt64 { state.withLock { $0.entries[id]?.generation ?? 0 } }

    /// Returns once call `id`'s generation moved past `seen`, after `timeout`, or on cancellation.
    func wait(for id: UUID, after seen: UInt64, timeout: Duration) async {
        let waiter = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.resume(id, waiter)
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    guard var entry = state.entries[id], entry.generation <= seen, !Task.isCancelled else { return true }
                    entry.waiters[waiter] = continuation
                    state.entries[id] = entry
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            resume(id, waiter)
        }
    }

    /// Call `id` changed (also called by this instance right after its own commits, ahead of
    /// the notification).
    func bump(_ id: UUID) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard var entry = state.entries[id] else { return [] }
            let waiting = Array(entry.waiters.values)
            entry.generation += 1
            entry.waiters.removeAll()
            state.entries[id] = entry
            return waiting
        }
        for waiter in waiters { waiter.resume() }
    }

    private func bumpAll() {
        for id in state.withLock({ Array($0.entries.keys) }) { bump(id) }
    }

    private func resume(_ id: UUID, _ waiter: Int) {
        let continuation = state.withLock { $0.entries[id]?.waiters.removeValue(forKey: waiter) }
        continuation?.resume()
    }

    func close() {
        task.withLock { $0?.cancel() }
        listener.close()
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.entries.removeAll() }
            return state.entries.values.flatMap { $0.waiters.values }
        }
        for waiter in waiters { waiter.resume() }
    }
}
