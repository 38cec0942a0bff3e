import IOLoop
import Synchronization
import Testing

@Suite struct EventLoopTests {
    /// Polls `condition` for up to `timeout`.
    static func eventually(timeout: Duration = .seconds(2), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    @Test func execute_fromSeveralThreads_keepsEachThreadsOrder() async throws {
        let loop = try EventLoop(name: "test-execute")
        defer { loop.stop() }
        let log = Locked<[[Int]]>(Array(repeating: [], count: 4))
        let onLoop = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for index in 0..<1_000 {
                        loop.execute {
                            if loop.inEventLoop { onLoop.withLock { $0 += 1 } }
                            log.withLock { $0[thread].append(index) }
                        }
                    }
                }
            }
        }
        let finished = await Self.eventually { log.withLock { $0.allSatisfy { $0.count == 1_000 } } }
        #expect(finished)
        #expect(log.withLock { $0.allSatisfy { $0 == Array(0..<1_000) } })
        #expect(onLoop.withLock { $0 } == 4_000)
    }

    @Test func timers_fireInDeadlineOrder_andCancelledOnesDoNot() async throws {
        let loop = try EventLoop(name: "test-timers")
        defer { loop.stop() }
        let fired = Locked<[Int]>([])
        loop.execute {
            for delay in [30, 10, 50, 20, 40] {
                loop.scheduleTimer(afterNanoseconds: UInt64(delay) * 1_000_000) { fired.withLock { $0.append(delay) } }
            }
            let cancelled = loop.scheduleTimer(afterNanoseconds: 25_000_000) { fired.withLock { $0.append(-1) } }
            loop.cancelTimer(cancelled)
        }
        let done = await Self.eventually { fired.withLock { $0.count >= 5 } }
        #expect(done)
        try await Task.sleep(for: .milliseconds(30))
        #expect(fired.withLock { $0 } == [10, 20, 30, 40, 50])
    }

    @Test func timers_withEqualDelays_fireInSchedulingOrder() async throws {
        let loop = try EventLoop(name: "test-timer-ties")
        defer { loop.stop() }
        let fired = Locked<[Int]>([])
        loop.execute {
            // One deadline for all: scheduled inside one closure within the same millisecond or so.
            for index in 0..<50 {
                loop.scheduleTimer(afterNanoseconds: 5_000_000) { fired.withLock { $0.append(index) } }
            }
        }
        let done = await Self.eventually { fired.withLock { $0.count == 50 } }
        #expect(done)
        #expect(fired.withLock { $0 } == Array(0..<50))
    }

    @Test func taskWithExecutorPreference_runsOnTheLoopThread() async throws {
        let loop = try EventLoop(name: "test-executor")
        defer { loop.stop() }
        let results = await Task(executorPreference: loop) {
            var results = [loop.inEventLoop]
            await Task.yield()
            results.append(loop.inEventLoop)
            try? await Task.sleep(for: .milliseconds(5))
            results.append(loop.inEventLoop)
            return results
        }.value
        #expect(results == [true, true, true])
        #expect(!loop.inEventLoop)
    }

    @Test func current_isTheCallingThreadsLoop_andNilElsewhere() async throws {
        let loop = try EventLoop(name: "test-current")
        defer { loop.stop() }
        let onLoop = await Task(executorPreference: loop) { EventLoop.current === loop }.value
        #expect(onLoop)
        #expect(EventLoop.current == nil)
        #expect(!loop.isStopping)
    }

    /// Work the loop hands itself while flushing (a flush resuming a suspended writer, say) must
    /// run in the next iteration, not wait for an unrelated wakeup.
    @Test func workQueuedDuringAFlush_runsPromptly() async throws {
        let loop = try EventLoop(name: "test-flush-work")
        defer { loop.stop() }
        let ran = Locked(false)
        let flushable = QueueingFlushable(loop: loop) { ran.withLock { $0 = true } }
        loop.execute {
            // From a timer, so the flush runs at the end of an iteration with no queued work.
            loop.scheduleTimer(afterNanoseconds: 1_000_000) { loop.scheduleFlush(flushable) }
        }
        let done = await Self.eventually(timeout: .seconds(2)) { ran.withLock { $0 } }
        #expect(done, "work queued from a flush waited for another wakeup")
    }
}

/// On flush, queues `work` on its loop from the loop thread.
private final class QueueingFlushable: EventLoopFlushable, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    let loop: EventLoop
    let work: @Sendable () -> Void

    init(loop: EventLoop, work: @escaping @Sendable () -> Void) {
        self.loop = loop
        self.work = work
    }

    func flushAtEndOfIteration() { loop.execute(work) }
}

/// A Mutex that closures can share.
private final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<R: Sendable>(_ body: (inout sending Value) -> sending R) -> R { mutex.withLock(body) }
}
