package import Postgres

extension ServiceContext {
    /// The service's connection pool: from `RV_PG_URL_<SERVICE>`, or locally the cluster of
    /// `compose/local/db.sh` as role `rv_<role>`. Applies `migrations` to `schema` before
    /// returning, then registers a readiness check (`addPostgresReadinessCheck`), pool gauges
    /// and a closer.
    package func makePostgresPool(role: String? = nil, schema: String, migrations: [Migration] = [],
                                  poolSize: Int? = nil) async throws -> PostgresPool {
        let role = role ?? configuration.name
        let variable = ServiceConfiguration.postgresVariable(service: configuration.name)
        let url = configuration.postgresURL ?? "postgresql://rv_\(role):rv_\(role)_local@127.0.0.1:7432/rendezvous"
        var postgres: PostgresConfiguration
        do {
            postgres = try PostgresConfiguration(url: url)
        } catch {
            throw ConfigurationError(variable: variable, message: "not a valid Postgres URL")
        }
        postgres.applicationName = "rv-\(configuration.name)"
        if let poolSize { postgres.poolSize = poolSize }
        let pool = PostgresPool(configuration: postgres, logger: logger)
        if !migrations.isEmpty {
            let applied = try await Migrator(schema: schema, migrations: migrations).migrate(pool)
            if !applied.isEmpty {
                logger.info("migrations applied", metadata: ["schema": .string(schema), "versions": .string("\(applied)")])
            }
        }
        addPostgresReadinessCheck(pool)
        let help = "Postgres pool connections by state"
        metrics.addGaugeHook("db_pool_connections", labels: [("state", "in_use")], help: help) { Double(pool.stats.inUse) }
        metrics.addGaugeHook("db_pool_connections", labels: [("state", "idle")], help: help) { Double(pool.stats.idle) }
        metrics.addGaugeHook("db_pool_connections_max", help: "Most connections the Postgres pool opens") { Double(pool.stats.size) }
        metrics.addGaugeHook("db_pool_waiters", help: "Tasks waiting for a Postgres connection") { Double(pool.stats.waiters) }
        onShutdown("postgres pool") { pool.close() }
        return pool
    }

    /// `/readyz` fails ("postgres: unreachable (connectionFailed)") while `pool` cannot reach
    /// its server. A pool that had a connection back unbroken in the last `readiness.maxAge`
    /// proves the server answers, so under load a probe costs no round trip; an idle pool
    /// runs `SELECT 1`, at most once a `maxAge` however often probes come.
    package func addPostgresReadinessCheck(_ pool: PostgresPool) {
        let recent = readiness.maxAge
        addReadinessCheck("postgres") {
            if pool.answered(within: recent) { return }
            do {
                _ = try await pool.withConnection { try await $0.query("SELECT 1") }
            } catch let error as PostgresError where error.code == .poolTimeout {
                throw ReadinessFailure("no free connection (poolTimeout)")
            } catch let error as PostgresError {
                throw ReadinessFailure("unreachable (\(error.code))")
            }
        }
    }
}
