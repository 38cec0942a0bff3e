import Foundation
import Postgres
import Testing
import TestSupport

@Suite struct PipelineTests {
    @Test func pipeline_returnsResultsInOrder() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let results = try await pool.withConnection { connection in
            try await connection.pipeline((0..<10).map { PostgresStatement("SELECT $1::int4 * 10", [.int32(Int32($0))]) })
        }
        #expect(try results.map { try $0[0].decode(0, as: Int32.self) } == (0..<10).map { Int32($0 * 10) })
    }

    @Test func pipeline_failure_rollsBackTheBatch_andTheConnectionStaysUsable() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 1))
        defer { pool.close() }
        let table = TestDatabase.uniqueName("pipeline")
        try await pool.withConnection { try await $0.executeScript("CREATE TABLE \(table) (id int4 PRIMARY KEY)") }
        let error = await #expect(throws: PostgresError.self) {
            try await pool.withConnection { connection in
                try await connection.pipeline([
                    PostgresStatement("INSERT INTO \(table) VALUES ($1)", [.int32(1)]),
                    PostgresStatement("INSERT INTO \(table) VALUES ($1)", [.int32(1)]),
                    PostgresStatement("INSERT INTO \(table) VALUES ($1)", [.int32(2)]),
                ])
            }
        }
        #expect(error?.sqlState == .uniqueViolation)
        let count = try await pool.withConnection { connection in
            let rows = try await connection.query("SELECT count(*) FROM \(table)")
            try await connection.executeScript("DROP TABLE \(table)")
            return try rows[0].decode(0, as: Int64.self)
        }
        #expect(count == 0)
    }
}

/// Throughput and latency figures; run with RV_PG_BENCH=1 (ideally in a release build).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["RV_PG_BENCH"] != nil))
struct PostgresBenchmarks {
    @Test func roundTrip_sequential_pipeline_and_pool() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 16))
        defer { pool.close() }
        let clock = ContinuousClock()
        let count = 5_000
        let sequential = try await pool.withConnection { connection in
            try await clock.measure {
                for index in 0..<count { _ = try await connection.query("SELECT $1::int4", [.int32(Int32(index))]) }
            }
        }
        print("bench: sequential round trip \(micros(sequential) / Double(count)) µs/query")

        let batch = (0..<10).map { PostgresStatement("SELECT $1::int4", [.int32(Int32($0))]) }
        let batches = 500
        let (tenSequential, tenPipelined) = try await pool.withConnection { connection in
            let one = try await clock.measure {
                for _ in 0..<batches { for s in batch { _ = try await connection.query(s.sql, s.params) } }
            }
            let piped = try await clock.measure {
                for _ in 0..<batches { _ = try await connection.pipeline(batch) }
            }
            return (one, piped)
        }
        print("bench: 10 statements sequential \(micros(tenSequential) / Double(batches)) µs, pipelined \(micros(tenPipelined) / Double(batches)) µs")

        let database = ProcessInfo.processInfo.environment["RV_PG_BENCH_DATABASE"]
        var configuration = TestDatabase.configuration(role: database == nil ? "testsvc" : "admin", poolSize: 16)
        if let database { configuration.database = database }
        let benchPool = try await TestDatabase.makePool(configuration)
        defer { benchPool.close() }
        let sql = database == nil ? "SELECT $1::int4" : "SELECT abalance FROM pgbench_accounts WHERE aid = $1"
        let perTask = 4_000
        let elapsed = try await clock.measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<16 {
                    group.addTask {
                        for index in 0..<perTask {
                            let aid = Int32((task * perTask + index) % 100_000 + 1)
                            _ = try await benchPool.withConnection { try await $0.query(sql, [.int32(aid)]) }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        print("bench: pool of 16, 16 tasks: \(Int(Double(16 * perTask) / (micros(elapsed) / 1_000_000))) queries/s (\(sql))")
    }

    private func micros(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1_000_000 + Double(duration.components.attoseconds) / 1e12
    }
}
