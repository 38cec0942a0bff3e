import Foundation
import Synchronization

/// A few dedicated threads for CPU-heavy or blocking work (password hashing, ...), so that it
/// never runs on an event loop — where it would stall every connection of that loop — nor on
/// Swift's small cooperative pool.
package final class BlockingWorkPool: Sendable {
    private struct Job: Sendable {
        var work: @Sendable () -> Void
        var skip: @Sendable () -> Void
        var isCancelled: @Sendable () -> Bool
    }

    private struct State {
        var jobs: [Job] = []
        var head = 0
        var stopped = false
    }

    private let state = Mutex(State())
    private let condition = NSCondition()

    /// Starts `threads` worker threads (named `name`).
    package init(threads: Int, name: String) {
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in self.workLoop() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Runs `work` on a pool thread and returns its result. A caller cancelled while its job
    /// still waits gets `CancellationError` and the job never runs.
    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let cancelled = CancelFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let job = Job(
                    work: { continuation.resume(with: Result { try work() }) },
                    skip: { continuation.resume(throwing: CancellationError()) },
                    isCancelled: { cancelled.isSet })
                let accepted = state.withLock { state -> Bool in
                    guard !state.stopped else { return false }
                    state.jobs.append(job)
                    return true
                }
                guard accepted else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                condition.lock()
                condition.signal()
                condition.unlock()
            }
        } onCancel: {
            cancelled.set()
        }
    }

    /// Lets the threads finish queued work and end.
    package func stop() {
        state.withLock { $0.stopped = true }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    private func workLoop() {
        while true {
            condition.lock()
            var next: Job?
            while next == nil {
                let (job, stopped) = state.withLock { state -> (Job?, Bool) in
                    guard state.head < state.jobs.count else {
                        state.jobs.removeAll(keepingCapacity: true)
                        state.head = 0
                        return (nil, state.stopped)
                    }
                    let job = state.jobs[state.head]
                    state.head += 1
                    return (job, false)
                }
                if let job {
                    next = job
                } else if stopped {
                    condition.unlock()
                    return
                } else {
                    condition.wait()
                }
            }
            condition.unlock()
            guard let job = next else { continue }
            if job.isCancelled() { job.skip() } else { job.work() }
        }
    }
}

/// A flag set once from a cancellation handler and read by a worker thread.
private final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}
