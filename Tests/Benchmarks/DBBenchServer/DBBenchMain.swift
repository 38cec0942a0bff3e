#if canImport(Glibc)
import Glibc
#endif
import Auth
import Runtime

/// `db-bench-server`: the DB-backed RPC of `make bench`, as role rv_testsvc against the tables
/// `pgbench -i` created in schema testsvc, and UpsertProfile's tables (created when missing). Pool size: RV_DBBENCH_POOL_SIZE (default 16).
@main
struct DBBenchMain {
    static func main() async {
        await ServiceMain.run(name: "dbbench", defaultPort: 7198, onListening: { addresses in
            print("db-bench-server listening on \(addresses.host):\(addresses.port)")
            fflush(nil)
        }) { context in
            let poolSize = try context.environment.integer("RV_DBBENCH_POOL_SIZE", range: 1...256) ?? 16
            let pool = try await context.makePostgresPool(role: "testsvc", schema: "testsvc", poolSize: poolSize)
            let outbox = try Outbox(schema: "testsvc", stream: "bench_outbox")
            try await pool.withConnection { try await $0.executeScript(BenchService.ddl(outbox: outbox)) }
            // The bench outbox as WatchEvents, for the delivery-lag measurement (RV_SERVICE_CREDENTIALS).
            let notifier = try await OutboxNotifier(configuration: pool.configuration, channel: outbox.channel)
            context.onShutdown("outbox notifier") { notifier.close() }
            context.addInterceptor(ServiceAuthInterceptor(credentials: try context.environment.acceptedServiceCredentials(),
                                                          methods: EventStreamService.internalMethods))
            return [BenchService(pool: pool, outbox: outbox, reads: BatchedReads(pool: pool)),
                    EventStreamService(outbox: outbox, pool: pool, notifier: notifier)]
        }
    }
}
