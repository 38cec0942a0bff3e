import Contracts
import Postgres
import RPC

/// `rendezvous.bench.v1.Bench`: a primary-key read through the pool, the same statement
/// `pgbench -S` runs.
struct BenchService: BenchProvider {
    let pool: PostgresPool

    func getAccount(_ request: Bench.GetAccountRequest, context: ServerCallContext) async throws -> Bench.Account {
        let rows = try await pool.withConnection { connection in
            try await connection.query("SELECT abalance FROM testsvc.pgbench_accounts WHERE aid = $1", [.int32(request.aid)])
        }
        guard let row = rows.first else {
            throw RPCError(code: .notFound, message: "no account \(request.aid)", reason: "ACCOUNT_NOT_FOUND")
        }
        return Bench.Account(aid: request.aid, abalance: try row.decode(0))
    }
}
