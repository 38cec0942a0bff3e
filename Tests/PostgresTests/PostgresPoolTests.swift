import Foundation
import Postgres
import Testing
import TestSupport

@Suite struct PostgresPoolTests {
    /// `PGOPTIONS` (how `make test` relaxes synchronous_commit for its own sessions) reaches the
    /// server, and cannot undo the settings our decoding relies on.
    @Test func sessionOptions_apply_butTheConfigurationsOwnWin() async throws {
        var configuration = TestDatabase.configuration(poolSize: 1)
        configuration.sessionOptions = "-c synchronous_commit=remote_write -c TimeZone=Europe/Paris -c statement_timeout=1234"
        configuration.statementTimeout = .seconds(7)
        let pool = try await TestDatabase.makePool(configuration)
        defer { pool.close() }
        let row = try await pool.withConnection {
            try await $0.query("SELECT current_setting('synchronous_commit'), current_setting('TimeZone'), current_setting('statement_timeout')")[0]
        }
        #expect(try row.decode(0, as: String.self) == "remote_write")
        #expect(try row.decode(1, as: String.self) == "UTC")
        #expect(try row.decode(2, as: String.self) == "7s")
    }

    @Test func exhaustedPool_timesOutWithDBBusy() async throws {
        var configuration = TestDatabase.configuration(poolSize: 1)
        configuration.acquireTimeout = .milliseconds(200)
        let pool = try await TestDatabase.makePool(configuration)
        defer { pool.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            let holding = AsyncStream<Void>.makeStream()
            group.addTask {
                try await pool.withConnection { connection in
                    holding.continuation.yield()
                    _ = try await connection.query("SELECT pg_sleep(0.6)")
                }
            }
            for await _ in holding.stream { break }
            let started = ContinuousClock.now
            do {
                _ = try await pool.withConnection { try await $0.query("SELECT 1") }
                Issue.record("expected a pool timeout")
            } catch let error as PostgresError {
                #expect(error.code == .poolTimeout)
                #expect(error.grpcMapping.code == 14)
                #expect(error.grpcMapping.reason == "DB_BUSY")
            }
            let waited = ContinuousClock.now - started
            #expect(waited >= .milliseconds(180) && waited < .milliseconds(550))
            #expect(pool.stats.waiters == 0)
            try await group.waitForAll()
        }
        // The connection came back and serves again.
        #expect(try await pool.withConnection { try await $0.query("SELECT 1").count } == 1)
        let stats = pool.stats
        #expect(stats.size == 1 && stats.open == 1 && stats.idle == 1 && stats.inUse == 0 && stats.waiters == 0)
    }

    @Test func waiters_areServedFirstInFirstOut() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 2))
        defer { pool.close() }
        let order = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await pool.withConnection { connection in
                        _ = try await connection.query("SELECT pg_sleep(0.02)")
                        return index
                    }
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(order.count == 8)
        #expect(pool.stats.open <= 2)
        #expect(pool.stats.waiters == 0)
    }

    @Test func pool_recoversAfterBackendsAreTerminated() async throws {
        let application = TestDatabase.uniqueName("rv-recover")
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 4, applicationName: application))
        defer { pool.close() }
        // Open all four connections.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { _ = try await pool.withConnection { try await $0.query("SELECT pg_sleep(0.05)") } }
            }
            try await group.waitForAll()
        }
        #expect(pool.stats.open == 4)
        #expect(try await TestDatabase.terminateBackends(applicationName: application) == 4)

        var failures: [PostgresError] = []
        for _ in 0..<10 {
            do {
                let one = try await pool.withConnection { try await $0.query("SELECT 1")[0].decode(0, as: Int32.self) }
                #expect(one == 1)
            } catch let error as PostgresError {
                failures.append(error)
            }
        }
        #expect(failures.count <= 1)
        for failure in failures {
            #expect(failure.code == .connectionLost)
            #expect(failure.grpcMapping.code == 14)
        }
        #expect(pool.stats.open <= 4)
    }

    @Test func inFlightQuery_onTerminatedBackend_failsWithConnectionLost() async throws {
        let application = TestDatabase.uniqueName("rv-inflight")
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 1, applicationName: application))
        defer { pool.close() }
        async let killed: Int = {
            try await Task.sleep(for: .milliseconds(300))
            return try await TestDatabase.terminateBackends(applicationName: application)
        }()
        do {
            _ = try await pool.withConnection { try await $0.query("SELECT pg_sleep(5)") }
            Issue.record("expected the query to fail")
        } catch let error as PostgresError {
            #expect(error.code == .connectionLost)
            #expect(error.sqlState == nil || error.sqlState == .adminShutdown)  // libpq may report only the EOF
            #expect(error.grpcMapping.code == 14)
        }
        #expect(try await killed == 1)
        // The broken connection was discarded; the next call opens a fresh one.
        #expect(try await pool.withConnection { try await $0.query("SELECT 1").count } == 1)
    }

    @Test func withConnection_rollsBackATransactionLeftOpen() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 1))
        defer { pool.close() }
        let table = TestDatabase.uniqueName("left_open")
        try await pool.withConnection { try await $0.executeScript("CREATE TABLE \(table) (id int4)") }
        try await pool.withConnection { connection in
            try await connection.executeScript("BEGIN")
            try await connection.execute("INSERT INTO \(table) VALUES ($1)", [.int32(1)])
        }
        let count = try await pool.withConnection { connection in
            let rows = try await connection.query("SELECT count(*) FROM \(table)")
            try await connection.executeScript("DROP TABLE \(table)")
            return try rows[0].decode(0, as: Int64.self)
        }
        #expect(count == 0)
    }

    @Test func concurrentQueries_throughTheAllPoolConnections() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 8))
        defer { pool.close() }
        let sum = try await withThrowingTaskGroup(of: Int64.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await pool.withConnection {
                        try await $0.query("SELECT $1::int8 * 2", [.int64(Int64(index))])[0].decode(0, as: Int64.self)
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(sum == 2 * (0..<200).reduce(0, +))
        #expect(pool.stats.open <= 8)
    }
}
