import Foundation
package import Postgres

/// The cluster started by `compose/local/db.sh start`, found through the same environment
/// variables (RV_PG_HOST, RV_PG_PORT, RV_PG_DATABASE, RV_PG_PASSWORD_<ROLE>) and defaults.
package enum TestDatabase {
    package static let environment = ProcessInfo.processInfo.environment
    package static let host = environment["RV_PG_HOST"] ?? "127.0.0.1"
    package static let port = environment["RV_PG_PORT"].flatMap { Int($0) } ?? 7432
    package static let database = environment["RV_PG_DATABASE"] ?? "rendezvous"

    /// Thrown (never skipped) when the cluster is not there, saying how to start it.
    package struct Unreachable: Error, CustomStringConvertible {
        package var description: String
    }

    /// `role` is a service name (`testsvc`, `identity`…) or `admin`.
    package static func configuration(role: String = "testsvc", poolSize: Int = 4,
                              applicationName: String = "rv-tests") -> PostgresConfiguration {
        let password = environment["RV_PG_PASSWORD_\(role.uppercased())"] ?? "rv_\(role)_local"
        return PostgresConfiguration(host: host, port: port, database: database, user: "rv_\(role)",
                                     password: password, applicationName: applicationName,
                                     poolSize: poolSize, connectTimeout: .seconds(3),
                                     acquireTimeout: .seconds(5), statementTimeout: .seconds(30))
    }

    /// A pool whose connectivity was checked, with a clear failure when Postgres is down.
    package static func makePool(_ configuration: PostgresConfiguration = configuration()) async throws -> PostgresPool {
        let pool = PostgresPool(configuration: configuration)
        do {
            _ = try await pool.withConnection { try await $0.query("SELECT 1") }
        } catch let error as PostgresError {
            throw Unreachable(description: """
                Postgres is not reachable as \(configuration): \(error) \
                \(error.messagePrimary ?? ""). Start it with `bash compose/local/db.sh start` \
                (make test does this).
                """)
        }
        return pool
    }

    package static func makeAdminPool(poolSize: Int = 2) async throws -> PostgresPool {
        try await makePool(configuration(role: "admin", poolSize: poolSize, applicationName: "rv-tests-admin"))
    }

    /// A fresh table name in the testsvc schema, unique per call so tests can run in parallel.
    package static func uniqueName(_ prefix: String) -> String {
        "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// Terminates every backend whose application_name is `applicationName` and waits (up to
    /// 5 s) until they are gone: pg_terminate_backend only signals. Returns how many it signalled.
    @discardableResult
    package static func terminateBackends(applicationName: String) async throws -> Int {
        let admin = try await makeAdminPool(poolSize: 1)
        defer { admin.close() }
        let rows = try await admin.withConnection { connection in
            try await connection.query("""
                SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))
                FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()
                """, [.text(applicationName)])
        }
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while ContinuousClock.now < deadline {
            let left = try await admin.withConnection { connection in
                try await connection.query("""
                    SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()
                    """, [.text(applicationName)])[0].decode(0, as: Int.self)
            }
            if left == 0 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try rows[0].decode(0, as: Int.self)
    }
}
