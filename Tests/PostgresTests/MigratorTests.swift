import Foundation
import Postgres
import Testing
import TestSupport

@Suite struct MigratorTests {
    /// Runs `body` with a fresh schema owned by rv_testsvc (created and dropped by rv_admin).
    private func withSchema(_ body: (String) async throws -> Void) async throws {
        let admin = try await TestDatabase.makeAdminPool(poolSize: 1)
        defer { admin.close() }
        let schema = TestDatabase.uniqueName("mig")
        try await admin.withConnection { try await $0.executeScript("CREATE SCHEMA \(schema) AUTHORIZATION rv_testsvc") }
        do {
            try await body(schema)
        } catch {
            try await admin.withConnection { try await $0.executeScript("DROP SCHEMA \(schema) CASCADE") }
            throw error
        }
        try await admin.withConnection { try await $0.executeScript("DROP SCHEMA \(schema) CASCADE") }
    }

    private let migrations = [
        Migration(version: 1, name: "create_counter", sql: """
            CREATE TABLE counter (id int4 PRIMARY KEY, value int8 NOT NULL);
            SELECT pg_sleep(0.2);
            """),
        Migration(version: 2, name: "seed_counter", sql: "INSERT INTO counter VALUES (1, 0);"),
        Migration(version: 3, name: "add_note", sql: "ALTER TABLE counter ADD COLUMN note text;"),
    ]

    @Test func concurrentMigrators_applyEachVersionExactlyOnce() async throws {
        try await withSchema { schema in
            let results = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        // Separate pools: two service instances starting together.
                        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 1))
                        defer { pool.close() }
                        return try await Migrator(schema: schema, migrations: migrations).migrate(pool)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.sorted { $0.count < $1.count } == [[], [1, 2, 3]])
            let pool = try await TestDatabase.makePool()
            defer { pool.close() }
            let rows = try await pool.withConnection { connection in
                try await connection.query("SELECT version, name, checksum, applied_at FROM \(schema).schema_migrations ORDER BY version")
            }
            #expect(try rows.map { try $0.decode(0, as: Int.self) } == [1, 2, 3])
            #expect(try rows.map { try $0.decode(1, as: String.self) } == migrations.map(\.name))
            #expect(try rows.allSatisfy { try $0.decode(2, as: String.self).count == 64 })
            let counters = try await pool.withConnection { try await $0.query("SELECT count(*) FROM \(schema).counter") }
            #expect(try counters[0].decode(0, as: Int64.self) == 1)
            // Running again is a no-op.
            #expect(try await Migrator(schema: schema, migrations: migrations).migrate(pool) == [])
        }
    }

    @Test func changedAppliedMigration_failsWithChecksumMismatch() async throws {
        try await withSchema { schema in
            let pool = try await TestDatabase.makePool()
            defer { pool.close() }
            let first = Array(migrations.prefix(2))
            #expect(try await Migrator(schema: schema, migrations: first).migrate(pool) == [1, 2])
            var edited = migrations
            edited[1].sql = "INSERT INTO counter VALUES (1, 100);"
            let error = await #expect(throws: MigrationError.self) {
                try await Migrator(schema: schema, migrations: edited).migrate(pool)
            }
            guard case .checksumMismatch(let version, _, _) = error?.kind else {
                Issue.record("expected a checksum mismatch, got \(String(describing: error))")
                return
            }
            #expect(version == 2)
            #expect(error.map { String(describing: $0) }?.contains("migration 2 was changed") == true)
            #expect(error.map { String(describing: $0) }?.contains("INSERT") == false)
            // Nothing after the failure was applied: migration 3 waits for a fixed list.
            let versions = try await pool.withConnection { connection in
                try await connection.query("SELECT version FROM \(schema).schema_migrations ORDER BY version")
            }
            #expect(try versions.map { try $0.decode(0, as: Int.self) } == [1, 2])
        }
    }

    /// A rollout runs the previous release beside the new one, and a rollback starts it again on
    /// the schema the new one migrated: versions it does not know are no reason to refuse.
    @Test func olderRelease_onASchemaWithNewerVersions_startsAndAppliesNothing() async throws {
        try await withSchema { schema in
            let pool = try await TestDatabase.makePool()
            defer { pool.close() }
            #expect(try await Migrator(schema: schema, migrations: migrations).migrate(pool) == [1, 2, 3])
            #expect(try await Migrator(schema: schema, migrations: Array(migrations.prefix(2))).migrate(pool) == [])
            let versions = try await pool.withConnection { connection in
                try await connection.query("SELECT version FROM \(schema).schema_migrations ORDER BY version")
            }
            #expect(try versions.map { try $0.decode(0, as: Int.self) } == [1, 2, 3])
            // The column the newer release added is still there for it.
            _ = try await pool.withConnection { try await $0.query("SELECT note FROM \(schema).counter") }
        }
    }

    @Test func invalidInput_isRejectedBeforeTouchingTheDatabase() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        await #expect(throws: MigrationError.self) {
            try await Migrator(schema: "x; DROP SCHEMA identity", migrations: []).migrate(pool)
        }
        await #expect(throws: MigrationError.self) {
            try await Migrator(schema: "testsvc", migrations: [migrations[0], migrations[0]]).migrate(pool)
        }
    }
}
