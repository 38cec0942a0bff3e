import Contracts
import Postgres
import RPC

/// `rendezvous.bench.v1.Bench`: a primary-key read through the pool, the same statement
/// `pgbench -S` runs.
struct BenchService: RPCService {
    let pool: PostgresPool

    var serviceName: String { BenchClient.serviceName }

    func register(in router: inout RPCRouter) {
        router.unary(serviceName, "GetAccount") { (request: Bench.GetAccountRequest, _) in
            let rows = try await pool.withConnection { connection in
                try await connection.query("SELECT abalance FROM testsvc.pgbench_accounts WHERE aid = $1", [.int32(request.aid)])
            }
            guard let row = rows.first else {
                throw RPCError(code: .notFound, message: "no account \(request.aid)", reason: "ACCOUNT_NOT_FOUND")
            }
            return Bench.Account(aid: request.aid, abalance: try row.decode(0))
        }
    }
}
