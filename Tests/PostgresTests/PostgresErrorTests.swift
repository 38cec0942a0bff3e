import Foundation
import Postgres
import Testing
import TestSupport

@Suite struct PostgresErrorTests {
    /// Runs `body` against a fresh table `(id int4 PRIMARY KEY, email text UNIQUE NOT NULL
    /// CHECK (length(email) > 3), parent int4 REFERENCES itself)`, dropped afterwards.
    private func withTable(_ body: (Connection, String) async throws -> Void) async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let table = TestDatabase.uniqueName("errors")
        try await pool.withConnection { connection in
            try await connection.executeScript("""
                CREATE TABLE \(table) (id int4 PRIMARY KEY, email text UNIQUE NOT NULL
                  CONSTRAINT email_long_enough CHECK (length(email) > 3), parent int4 REFERENCES \(table))
                """)
            do {
                try await body(connection, table)
            } catch {
                try await connection.executeScript("DROP TABLE \(table)")
                throw error
            }
            try await connection.executeScript("DROP TABLE \(table)")
        }
    }

    private func failure<T>(_ body: () async throws -> T) async -> PostgresError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? PostgresError
        }
    }

    @Test func uniqueViolation_mapsToAlreadyExists_withoutSQLOrValues() async throws {
        try await withTable { connection, table in
            let secret = "secret-\(UUID())@example.com"
            let insert = "INSERT INTO \(table) (id, email) VALUES ($1, $2)"
            try await connection.execute(insert, [.int32(1), .text(secret)])
            let error = await failure { try await connection.execute(insert, [.int32(2), .text(secret)]) }
            #expect(error?.sqlState == .uniqueViolation)
            #expect(error?.constraintName == "\(table)_email_key")
            #expect(error?.grpcMapping.code == 6)
            #expect(error?.grpcMapping.reason == "ALREADY_EXISTS")
            let description = error.map { String(describing: $0) } ?? ""
            #expect(description.contains("23505"))
            #expect(!description.contains(secret))
            #expect(!description.contains("INSERT"))
            #expect(!(error?.grpcMapping.message.contains(secret) ?? true))
            #expect(error?.detail?.contains(secret) == true)  // kept, but only as a property
        }
    }

    @Test func integrityViolations_mapToGRPCCodes() async throws {
        try await withTable { connection, table in
            let foreignKey = await failure {
                try await connection.execute("INSERT INTO \(table) VALUES (1, 'a@b.c', $1)", [.int32(99)])
            }
            #expect(foreignKey?.sqlState == .foreignKeyViolation)
            #expect(foreignKey?.grpcMapping.code == 9)
            let check = await failure {
                try await connection.execute("INSERT INTO \(table) (id, email) VALUES (1, $1)", [.text("ab")])
            }
            #expect(check?.sqlState == .checkViolation)
            #expect(check?.constraintName == "email_long_enough")
            #expect(check?.grpcMapping.code == 3)
            let notNull = await failure {
                try await connection.execute("INSERT INTO \(table) (id, email) VALUES (1, $1)", [.text(nil)])
            }
            #expect(notNull?.sqlState == .notNullViolation)
            #expect(notNull?.grpcMapping.code == 3)
        }
    }

    @Test func raiseException_usesItsMessageAsReason() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let error = await failure {
            try await pool.withConnection { try await $0.executeScript(
                "DO $$ BEGIN RAISE EXCEPTION 'SESSION_FULL' USING HINT = 'This session is full.'; END $$") }
        }
        #expect(error?.sqlState == .raiseException)
        #expect(error?.grpcMapping.code == 9)
        #expect(error?.grpcMapping.reason == "SESSION_FULL")
        #expect(error?.grpcMapping.message == "This session is full.")
        let prose = await failure {
            try await pool.withConnection { try await $0.executeScript("DO $$ BEGIN RAISE EXCEPTION 'user 42 is gone'; END $$") }
        }
        #expect(prose?.grpcMapping.reason == "FAILED_PRECONDITION")
    }

    @Test func injectionAttempt_staysData() async throws {
        try await withTable { connection, table in
            let hostile = "x'); DROP TABLE \(table); --"
            try await connection.execute("INSERT INTO \(table) (id, email) VALUES (1, $1)", [.text(hostile)])
            let rows = try await connection.query("SELECT email FROM \(table) WHERE email = $1", [.text(hostile)])
            #expect(try rows.map { try $0.decode(0, as: String.self) } == [hostile])
            let invalid = await failure {
                try await connection.query("SELECT * FROM \(table) WHERE id = $1::text::int4", [.text("1 OR 1=1")])
            }
            #expect(invalid?.sqlState == .invalidTextRepresentation)
            #expect(invalid?.grpcMapping.code == 3)
            #expect(!(invalid.map { String(describing: $0) }?.contains("1 OR 1=1") ?? true))
        }
    }

    @Test func syntaxError_isInternal_andDescriptionOmitsSQL() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let error = await failure {
            try await pool.withConnection { try await $0.query("SELEC 'needle-text' FROM nowhere", [.text("v")]) }
        }
        #expect(error?.sqlState == .syntaxError)
        #expect(error?.grpcMapping.code == 13)
        #expect(error?.grpcMapping.reason == "INTERNAL")
        let description = error.map { String(describing: $0) } ?? "needle-text"
        #expect(!description.contains("needle-text"))
        #expect(!description.contains("SELEC"))
    }

    @Test func roleIsolation_otherServiceSchemaIsDenied() async throws {
        let identity = try await TestDatabase.makePool(TestDatabase.configuration(role: "identity", poolSize: 1))
        defer { identity.close() }
        try await identity.withConnection { connection in
            try await connection.executeScript("""
                CREATE TABLE IF NOT EXISTS identity.isolation_probe (id int4 PRIMARY KEY);
                INSERT INTO identity.isolation_probe VALUES (1) ON CONFLICT DO NOTHING
                """)
        }
        let testsvc = try await TestDatabase.makePool()
        defer { testsvc.close() }
        for sql in ["SELECT * FROM identity.isolation_probe", "CREATE TABLE identity.intruder (id int4)",
                    "CREATE TABLE public.intruder (id int4)"] {
            let error = await failure { try await testsvc.withConnection { try await $0.query(sql) } }
            #expect(error?.sqlState == .insufficientPrivilege, "\(sql)")
        }
    }

    @Test func connectionFailure_mapsToUnavailable() async throws {
        var configuration = TestDatabase.configuration()
        configuration.password = "wrong-password"
        let pool = PostgresPool(configuration: configuration)
        defer { pool.close() }
        let error = await failure { try await pool.withConnection { try await $0.query("SELECT 1") } }
        #expect(error?.code == .connectionFailed)
        #expect(error?.grpcMapping.code == 14)
        #expect(!(error.map { String(describing: $0) }?.contains("wrong-password") ?? true))
    }

    @Test func configuration_parsesURL() throws {
        let configuration = try PostgresConfiguration(
            url: "postgresql://rv_identity:s3cret@db.internal:6543/rendezvous?application_name=identity")
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == 6543)
        #expect(configuration.user == "rv_identity")
        #expect(configuration.password == "s3cret")
        #expect(configuration.database == "rendezvous")
        #expect(configuration.applicationName == "identity")
        #expect(!configuration.description.contains("s3cret"))
        #expect(throws: PostgresError.self) { try PostgresConfiguration(url: "postgresql://h/db?no_such_option=1") }
        #expect(throws: PostgresError.self) { try PostgresConfiguration(url: "host=h port=http") }
    }
}
