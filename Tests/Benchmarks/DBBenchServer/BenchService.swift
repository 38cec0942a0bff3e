import Contracts
import Postgres
import RPC
import Runtime

/// `rendezvous.bench.v1.Bench`: a primary-key read, the same statement `pgbench -S` runs, sent
/// with other calls' reads (`BatchedReads`, as identity's GetAccount and the feed's
/// window check are); and a profile-shaped upsert with or without its outbox event.
struct BenchService: BenchProvider {
    let pool: PostgresPool
    let outbox: Outbox
    let reads: BatchedReads

    /// The tables UpsertProfile writes, created at start-up when missing.
    static func ddl(outbox: Outbox) -> String {
        """
        CREATE TABLE IF NOT EXISTS testsvc.bench_profiles (
            id int PRIMARY KEY,
            bio text NOT NULL,
            updates bigint NOT NULL DEFAULT 1,
            updated_at timestamptz NOT NULL DEFAULT now()
        );
        \(outbox.ddl)
        """
    }

    func getAccount(_ request: Bench.GetAccountRequest, context: ServerCallContext) async throws -> Bench.Account {
        let rows = try await reads.query(PostgresStatement("SELECT abalance FROM testsvc.pgbench_accounts WHERE aid = $1",
                                                            [.int32(request.aid)]))
        guard let row = rows.first else {
            throw RPCError(code: .notFound, message: "no account \(request.aid)", reason: "ACCOUNT_NOT_FOUND")
        }
        return Bench.Account(aid: request.aid, abalance: try row.decode(0))
    }

    func upsertProfile(_ request: Bench.UpsertProfileRequest, context: ServerCallContext) async throws
        -> Bench.UpsertProfileResponse {
        let id = Int32.random(in: 1...100_000)
        // The event goes out with the COMMIT, as every service's do (`Outbox.appendAtCommit`).
        try await pool.withTransaction { connection in
            try await connection.execute("""
                INSERT INTO testsvc.bench_profiles (id, bio) VALUES ($1, $2)
                ON CONFLICT (id) DO UPDATE SET bio = excluded.bio, updates = bench_profiles.updates + 1, updated_at = now()
                """, [.int32(id), .text(request.bio)])
            guard request.withEvent else { return }
            try await outbox.appendAtCommit(OutboxEvent(type: "ProfileUpdated", app: "bench", aggregateID: String(id),
                                                        payload: Array(request.bio.utf8)), on: connection)
        }
        return .init(id: id, cursor: 0)
    }
}
