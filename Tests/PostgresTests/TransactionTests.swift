import Foundation
import Postgres
import Synchronization
import Testing
import TestSupport

@Suite struct TransactionTests {
    struct Boom: Error {}

    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        @discardableResult func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
        var current: Int { value.load(ordering: .relaxed) }
    }

    @Test func throwingBody_rollsBack() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let table = TestDatabase.uniqueName("rollback")
        try await pool.withConnection { try await $0.executeScript("CREATE TABLE \(table) (id int4)") }
        await #expect(throws: Boom.self) {
            try await pool.withTransaction { tx in
                try await tx.execute("INSERT INTO \(table) VALUES ($1)", [.int32(1)])
                throw Boom()
            }
        }
        try await pool.withTransaction { tx in
            try await tx.execute("INSERT INTO \(table) VALUES ($1)", [.int32(2)])
        }
        let ids = try await pool.withConnection { connection in
            let rows = try await connection.query("SELECT id FROM \(table)")
            try await connection.executeScript("DROP TABLE \(table)")
            return try rows.map { try $0.decode(0, as: Int32.self) }
        }
        #expect(ids == [2])
    }

    @Test func swallowedStatementError_failsTheCommit() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let error = await #expect(throws: PostgresError.self) {
            try await pool.withTransaction { tx in
                _ = try? await tx.query("SELECT 1/0")
            }
        }
        #expect(error?.sqlState == .inFailedSqlTransaction)
    }

    @Test func concurrentSerializableIncrements_retryAndBothCommit() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 4))
        defer { pool.close() }
        let table = TestDatabase.uniqueName("counter")
        try await pool.withConnection { connection in
            try await connection.executeScript("CREATE TABLE \(table) (id int4 PRIMARY KEY, value int8 NOT NULL)")
            try await connection.execute("INSERT INTO \(table) VALUES (1, 0)")
        }
        let attempts = Counter()
        let bothRead = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await pool.withTransaction(isolation: .serializable, maxAttempts: 10) { tx in
                        attempts.increment()
                        let value = try await tx.query("SELECT value FROM \(table) WHERE id = 1")[0]
                            .decode(0, as: Int64.self)
                        // Let both transactions read before either writes (first attempt only).
                        if bothRead.increment() <= 2 {
                            for _ in 0..<100 where bothRead.current < 2 {
                                try await Task.sleep(for: .milliseconds(5))
                            }
                        }
                        try await tx.execute("UPDATE \(table) SET value = $1 WHERE id = 1", [.int64(value + 1)])
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = try await pool.withConnection { connection in
            let rows = try await connection.query("SELECT value FROM \(table) WHERE id = 1")
            try await connection.executeScript("DROP TABLE \(table)")
            return try rows[0].decode(0, as: Int64.self)
        }
        #expect(final == 2)
        #expect(attempts.current >= 3)  // at least one retry happened
    }

    @Test func nonRetryableError_isNotRetried() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let attempts = Counter()
        await #expect(throws: PostgresError.self) {
            try await pool.withTransaction(isolation: .serializable) { tx in
                attempts.increment()
                _ = try await tx.query("SELECT 1/0")
            }
        }
        #expect(attempts.current == 1)
    }
}
