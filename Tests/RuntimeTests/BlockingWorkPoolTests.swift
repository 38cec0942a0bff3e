import Foundation
import Runtime
import Synchronization
import Testing

@Suite struct BlockingWorkPoolTests {
    struct Boom: Error {}

    @Test func run_executesOnThePoolsThread_andReturnsTheResult() async throws {
        let pool = BlockingWorkPool(threads: 1, name: "rv-test-pool")
        defer { pool.stop() }
        let caller = UInt(pthread_self())
        let first = try await pool.run { UInt(pthread_self()) }
        let second = try await pool.run { UInt(pthread_self()) }
        #expect(first == second, "a one-thread pool ran work on two threads")
        #expect(first != caller, "the work ran on the caller's thread")
        #expect(try await pool.run { 6 * 7 } == 42)
        await #expect(throws: Boom.self) { try await pool.run { throw Boom() } }
    }

    @Test func cancelledWhileQueued_neverRuns() async throws {
        let pool = BlockingWorkPool(threads: 1, name: "rv-test-queue")
        defer { pool.stop() }
        let ran = Atomic<Int>(0)
        let gate = NSCondition()
        let release = Atomic<Bool>(false)
        // Occupy the only thread until released.
        let blocker = Task {
            try await pool.run {
                gate.lock()
                while !release.load(ordering: .relaxed) { _ = gate.wait(until: Date().addingTimeInterval(0.01)) }
                gate.unlock()
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        let queued = Task { try await pool.run { ran.add(1, ordering: .relaxed) } }
        try await Task.sleep(for: .milliseconds(20))
        queued.cancel()
        release.store(true, ordering: .relaxed)
        try await blocker.value
        await #expect(throws: CancellationError.self) { try await queued.value }
        #expect(ran.load(ordering: .relaxed) == 0)
        // The pool keeps working afterwards.
        #expect(try await pool.run { 1 } == 1)
    }
}
