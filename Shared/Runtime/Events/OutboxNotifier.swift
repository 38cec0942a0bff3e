package import Postgres
import Foundation
import Synchronization

/// Wakes event-stream watchers when an outbox commits: one LISTEN connection per process,
/// fanned out to any number of waiters through a generation counter.
///
/// It also sends this process's wake-ups. A NOTIFY inside a writer's transaction would make
/// every event-writing commit take Postgres's database-wide notification lock until its commit
/// record is flushed — one commit at a time again. So `Outbox.append` registers the commit
/// instead (`Connection.afterCommit`): the notifier wakes this process's watchers at once and
/// sends `pg_notify` for the other instances from a connection of its own, one at a time and
/// at most one per `notifyInterval`, the commits in between folding into the next. (A NOTIFY
/// is a transaction that waits for its commit record's flush: one per commit of a busy writer
/// doubled its commits.)
package final class OutboxNotifier: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
        /// A commit happened that the other instances have not been told of yet.
        var notifyPending = false
        var sender: CheckedContinuation<Bool, Never>?
        var closed = false
    }

    /// The notifier of each channel in this process, for `Outbox.append`.
    private static let registry = Mutex<[String: OutboxNotifier]>([:])

    package let channel: String
    /// How long this outbox's watchers have been held back (`EventStreamService` reports to it).
    package let holdBack = OutboxHoldBack()
    /// The least time between two NOTIFYs to the other instances: what a commit's wake-up may
    /// wait there beyond the NOTIFY's own round trip.
    package static let notifyInterval: Duration = .milliseconds(2)
    private let state = Mutex(State())
    private let listener: PostgresListener
    private let sendingPool: PostgresPool
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let senderTask = Mutex<Task<Void, Never>?>(nil)
    /// The payload of this notifier's NOTIFYs: its own come back on its LISTEN connection, and
    /// the commits they announce woke this process's watchers already.
    private let sender = UUID.random().uuidString

    /// Starts listening on `channel`. A dropped LISTEN connection reconnects by itself; its
    /// `.reconnected` signal also wakes watchers, who then re-read what they may have missed.
    package init(configuration: PostgresConfiguration, channel: String) async throws {
        self.channel = channel
        listener = PostgresListener(configuration: configuration)
        var sending = configuration
        sending.poolSize = 1
        sendingPool = PostgresPool(configuration: sending)
        let events = try await listener.listen(channel)
        let sender = self.sender
        let task = Task { [weak self] in
            for await event in events where event != .notification(PostgresNotification(channel: channel, payload: sender)) {
                self?.bump()
            }
        }
        self.task.withLock { $0 = task }
        senderTask.withLock { $0 = Task { [weak self] in await self?.sendNotifications() } }
        Self.registry.withLock { $0[channel] = self }
    }

    /// Whether this process has a notifier for `channel` to tell of commits.
    package static func isRegistered(channel: String) -> Bool {
        registry.withLock { $0[channel] != nil }
    }

    /// A transaction that appended to `channel`'s outbox committed: wakes this process's
    /// watchers now and the other instances' soon.
    package static func committed(channel: String) {
        guard let notifier = registry.withLock({ $0[channel] }) else { return }
        notifier.bump()
        let sender = notifier.state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.notifyPending = true
            defer { state.sender = nil }
            return state.sender
        }
        sender?.resume(returning: true)
    }

    /// One NOTIFY at a time while commits keep coming; retried after a pause when it fails (the
    /// other instances then catch up at their poll interval at worst).
    private func sendNotifications() async {
        while true {
            let proceed = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let ready = state.withLock { state -> Bool? in
                    if state.closed { return false }
                    if state.notifyPending { return true }
                    state.sender = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
            guard proceed, !state.withLock({ $0.closed }) else { return }
            state.withLock { $0.notifyPending = false }
            do {
                _ = try await sendingPool.withConnection { try await $0.query("SELECT pg_notify($1, $2)", [.text(channel), .text(sender)]) }
                try? await Task.sleep(for: Self.notifyInterval)
            } catch {
                state.withLock { $0.notifyPending = true }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
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
        Self.registry.withLock { registry in
            if registry[channel] === self { registry[channel] = nil }
        }
        let sender = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.closed = true
            defer { state.sender = nil }
            return state.sender
        }
        sender?.resume(returning: false)
        senderTask.withLock { $0?.cancel() }
        sendingPool.close()
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
