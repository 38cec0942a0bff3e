internal import Dispatch
internal import Foundation
import Synchronization

/// A dedicated OS thread that runs blocking libpq calls one job at a time, off Swift's
/// cooperative pool. Suspended tasks are resumed through continuations when their job ends.
///
/// The thread holds a reference to this object until `stop()`; the owning `Connection`
/// calls `stop()` from its `deinit`, and jobs capture the connection, so a connection is never
/// freed while one of its jobs runs.
final class WorkerThread: Sendable {
    private enum Job {
        case run(@Sendable () -> Void)
        case stop
    }

    private struct Queue {
        var jobs: [Job] = []
        var stopped = false
    }

    private let queue = Mutex(Queue())
    private let wakeup = DispatchSemaphore(value: 0)

    init(name: String) {
        let thread = Thread { [self] in self.loop() }
        thread.name = name
        thread.stackSize = 512 * 1024
        thread.start()
    }

    /// Runs `body` on the worker thread and returns its result to the suspended caller.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = queue.withLock { queue -> Bool in
                guard !queue.stopped else { return false }
                queue.jobs.append(.run { continuation.resume(with: Result { try body() }) })
                return true
            }
            if accepted {
                wakeup.signal()
            } else {
                continuation.resume(throwing: PostgresError(code: .connectionClosed))
            }
        }
    }

    /// Ends the thread after the jobs already queued.
    func stop() {
        queue.withLock { $0.jobs.append(.stop) }
        wakeup.signal()
    }

    private func loop() {
        while true {
            wakeup.wait()
            let job = queue.withLock { queue -> Job? in
                queue.jobs.isEmpty ? nil : queue.jobs.removeFirst()
            }
            switch job {
            case .run(let body):
                body()
            case .stop:
                queue.withLock { $0.stopped = true }
                return
            case nil:
                continue
            }
        }
    }
}
