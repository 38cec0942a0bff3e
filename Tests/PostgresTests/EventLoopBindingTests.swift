import Foundation
import IOLoop
@testable import Postgres
import Testing
import TestSupport

/// Connections are bound to event loops: a task on a loop gets one bound to that loop, so its
/// statements never leave the thread; tasks elsewhere still get answers.
@Suite struct EventLoopBindingTests {
    @Test func taskOnALoop_getsAConnectionBoundToThatLoop() async throws {
        let loop = try EventLoop(name: "test-pg-bound")
        defer { loop.stop() }
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 2))
        defer { pool.close() }
        let (bound, stayed, value) = try await Task(executorPreference: loop) {
            try await pool.withConnection { connection in
                let rows = try await connection.query("SELECT $1::int4 + 1", [.int32(41)])
                return (connection.loop === loop, loop.inEventLoop, try rows[0].decode(0, as: Int32.self))
            }
        }.value
        #expect(bound && stayed)
        #expect(value == 42)
    }

    @Test func connectionBoundToOneLoop_servesATaskOnAnother() async throws {
        let first = try EventLoop(name: "test-pg-first")
        let second = try EventLoop(name: "test-pg-second")
        defer { first.stop(); second.stop() }
        let pool = PostgresPool(configuration: TestDatabase.configuration(poolSize: 1))
        defer { pool.close() }
        let opened = try await Task(executorPreference: first) {
            try await pool.withConnection { $0.backendPID }
        }.value
        let (reused, stayed, value) = try await Task(executorPreference: second) {
            try await pool.withConnection { connection in
                let rows = try await connection.query("SELECT $1::int8 * 2", [.int64(21)])
                return (connection.backendPID, second.inEventLoop, try rows[0].decode(0, as: Int64.self))
            }
        }.value
        #expect(reused == opened && stayed && value == 42)
    }

    @Test func idleConnectionsOnALoop_areReplacedAfterTheirBackendsAreTerminated() async throws {
        let loop = try EventLoop(name: "test-pg-recover")
        defer { loop.stop() }
        let application = TestDatabase.uniqueName("rv-loop-recover")
        let pool = PostgresPool(configuration: TestDatabase.configuration(poolSize: 2, applicationName: application))
        defer { pool.close() }
        try await Task(executorPreference: loop) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask { _ = try await pool.withConnection { try await $0.query("SELECT pg_sleep(0.05)") } }
                }
                try await group.waitForAll()
            }
        }.value
        #expect(pool.stats.open == 2)
        #expect(try await TestDatabase.terminateBackends(applicationName: application) == 2)
        try await Task.sleep(for: .milliseconds(100))  // the loop reads the EOFs meanwhile
        let ones = try await Task(executorPreference: loop) {
            var ones: [Int32] = []
            for _ in 0..<4 {
                ones.append(try await pool.withConnection { try await $0.query("SELECT 1")[0].decode(0, as: Int32.self) })
            }
            return ones
        }.value
        #expect(ones == [1, 1, 1, 1])
        #expect(pool.stats.open <= 2)
    }

    /// Bigger than any socket buffer: libpq's non-blocking writes and reads come in pieces.
    @Test func largeStatementsAndResults_crossTheSocketInPieces() async throws {
        let loop = try EventLoop(name: "test-pg-large")
        defer { loop.stop() }
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let size = 4 << 20
        let text = String(repeating: "x", count: size)
        let (length, echoed, returned) = try await Task(executorPreference: loop) {
            try await pool.withConnection { connection in
                try await connection.executeScript("SELECT 1 /* \(text) */")
                let length = try await connection.query("SELECT length($1::text)", [.text(text)])[0].decode(0, as: Int.self)
                let echoed = try await connection.pipeline([PostgresStatement("SELECT $1::text = repeat('x', $2)",
                                                                              [.text(text), .int32(Int32(size))])])
                let returned = try await connection.query("SELECT repeat('y', $1)", [.int32(Int32(size))])
                return (length, try echoed[0][0].decode(0, as: Bool.self), try returned[0].decode(0, as: String.self).utf8.count)
            }
        }.value
        #expect(length == size && echoed && returned == size)
    }

    @Test func severalWaiters_timeOutTogether_andThePoolServesAgain() async throws {
        var configuration = TestDatabase.configuration(poolSize: 1)
        configuration.acquireTimeout = .milliseconds(150)
        let pool = try await TestDatabase.makePool(configuration)
        defer { pool.close() }
        let holding = AsyncStream<Void>.makeStream()
        let releasing = AsyncStream<Void>.makeStream()
        async let held: Void = pool.withConnection { _ in
            holding.continuation.yield()
            for await _ in releasing.stream { break }
        }
        for await _ in holding.stream { break }
        let codes = await withTaskGroup(of: PostgresError.Code?.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        _ = try await pool.withConnection { try await $0.query("SELECT 1") }
                        return nil
                    } catch {
                        return (error as? PostgresError)?.code
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(codes == Array(repeating: .poolTimeout, count: 5))
        #expect(pool.stats.waiters == 0)
        releasing.continuation.yield()
        try await held
        #expect(try await pool.withConnection { try await $0.query("SELECT 1").count } == 1)
    }

    @Test func cancelledWaiter_leavesTheQueue() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 1))
        defer { pool.close() }
        let holding = AsyncStream<Void>.makeStream()
        let releasing = AsyncStream<Void>.makeStream()
        async let held: Void = pool.withConnection { _ in
            holding.continuation.yield()
            for await _ in releasing.stream { break }
        }
        for await _ in holding.stream { break }
        let waiter = Task { try await pool.withConnection { try await $0.query("SELECT 1") } }
        #expect(await EventLoopBindingTests.eventually { pool.stats.waiters == 1 })
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(pool.stats.waiters == 0)
        releasing.continuation.yield()
        try await held
    }

    /// Polls `condition` for up to `timeout`.
    static func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }
}
