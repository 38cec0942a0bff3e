#if canImport(Glibc)
import Glibc
#endif
import Runtime

/// `db-bench-server`: the DB-backed RPC of `make bench`, as role rv_testsvc against the tables
/// `pgbench -i` created in schema testsvc. Pool size: RV_DBBENCH_POOL_SIZE (default 16).
@main
struct DBBenchMain {
    static func main() async {
        await ServiceMain.run(name: "dbbench", defaultPort: 7198, onListening: { addresses in
            print("db-bench-server listening on \(addresses.host):\(addresses.port)")
            fflush(nil)
        }) { context in
            let poolSize = try context.environment.integer("RV_DBBENCH_POOL_SIZE", range: 1...256) ?? 16
            let pool = try await context.makePostgresPool(role: "testsvc", schema: "testsvc", poolSize: poolSize)
            return [BenchService(pool: pool)]
        }
    }
}
