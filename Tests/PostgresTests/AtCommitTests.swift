import Postgres
import Testing
import TestSupport

/// `Connection.atCommit`: a statement sent with the transaction's COMMIT, in one pipeline.
@Suite struct AtCommitTests {
    static func ids(_ table: String, _ pool: PostgresPool) async throws -> [Int32] {
        try await pool.withConnection { connection in
            try await connection.query("SELECT id FROM \(table) ORDER BY id").map { try $0.decode(0, as: Int32.self) }
        }
    }

    static func insert(_ id: Int32, into table: String) -> PostgresStatement {
        PostgresStatement("INSERT INTO \(table) VALUES ($1)", [.int32(id)])
    }

    static func makeTable(_ pool: PostgresPool) async throws -> String {
        let table = TestDatabase.uniqueName("at_commit")
        try await pool.withConnection { try await $0.executeScript("CREATE TABLE \(table) (id int4 PRIMARY KEY)") }
        return table
    }

    @Test func aQueuedStatement_runsWithTheCommit_afterTheBodysOwnStatements() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let table = try await Self.makeTable(pool)
        try await pool.withTransaction { connection in
            #expect(connection.atCommit(Self.insert(2, into: table)))
            try await connection.execute("INSERT INTO \(table) VALUES ($1)", [.int32(1)])
            // Not sent yet: the body's own statements see only their own rows.
            #expect(try await connection.query("SELECT id FROM \(table)").count == 1)
        }
        #expect(try await Self.ids(table, pool) == [1, 2])
    }

    @Test func aBodyOfQueuedStatementsOnly_beginsAndCommits() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let table = try await Self.makeTable(pool)
        try await pool.withTransaction { connection in
            #expect(connection.atCommit(Self.insert(7, into: table)))
            #expect(connection.atCommit(Self.insert(8, into: table)))
        }
        #expect(try await Self.ids(table, pool) == [7, 8])
    }

    @Test func aFailingQueuedStatement_rollsTheWholeTransactionBack_andThrows() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 1))
        defer { pool.close() }
        let table = try await Self.makeTable(pool)
        try await pool.withConnection { try await $0.execute("INSERT INTO \(table) VALUES ($1)", [.int32(5)]) }
        await #expect(throws: PostgresError.self) {
            try await pool.withTransaction { connection in
                try await connection.execute("INSERT INTO \(table) VALUES ($1)", [.int32(1)])
                _ = connection.atCommit(Self.insert(5, into: table))
            }
        }
        #expect(try await Self.ids(table, pool) == [5], "the body's insert went with the failed commit")
        // The connection is clean for the next transaction (a pool of one hands back the same one).
        try await pool.withTransaction { try await $0.execute("INSERT INTO \(table) VALUES ($1)", [.int32(6)]) }
        #expect(try await Self.ids(table, pool) == [5, 6])
    }

    @Test func aThrowingBody_dropsWhatItQueued() async throws {
        struct Boom: Error {}
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 1))
        defer { pool.close() }
        let table = try await Self.makeTable(pool)
        await #expect(throws: Boom.self) {
            try await pool.withTransaction { connection in
                _ = connection.atCommit(Self.insert(1, into: table))
                throw Boom()
            }
        }
        try await pool.withTransaction { try await $0.execute("INSERT INTO \(table) VALUES ($1)", [.int32(2)]) }
        #expect(try await Self.ids(table, pool) == [2])
    }

    @Test func outsideATransaction_nothingIsQueued() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let queued = try await pool.withConnection { connection in
            connection.atCommit(PostgresStatement("SELECT 1"))
        }
        #expect(queued == false)
    }
}
