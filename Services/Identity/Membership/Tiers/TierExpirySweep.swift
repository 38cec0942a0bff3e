import Foundation
import Postgres
import Runtime

/// Writes downgrades of tiers whose grants ended: reads already show the effective tier
/// (`identity.current_tier`), the sweep makes the cache and the `TierChanged` event follow.
///
/// Safe to run on every instance at once: each batch takes its accounts with
/// `FOR UPDATE SKIP LOCKED`.
struct TierExpirySweep: Sendable {
    let pool: PostgresPool
    let outbox: Outbox
    var batchSize = 100
    var interval: Duration = .seconds(30)

    /// Sweeps until cancelled, every `interval`; a failed pass is logged by the caller's job
    /// runner and retried on the next tick.
    func run(onError: @Sendable (any Error) -> Void) async throws {
        while !Task.isCancelled {
            do {
                _ = try await sweep()
            } catch {
                onError(error)
            }
            try await Task.sleep(for: interval)
        }
    }

    /// One pass: refreshes every account whose cached tier went stale; returns how many.
    func sweep() async throws -> Int {
        var total = 0
        while true {
            let count = try await pool.withTransaction { connection in
                let due = try await connection.query("""
                    SELECT id FROM identity.accounts WHERE tier_expires_at <= now()
                    ORDER BY tier_expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
                    """, [.int(batchSize)])
                for row in due {
                    try await TierGrants.refresh(accountID: try row.decode(0), outbox: outbox, on: connection)
                }
                return due.count
            }
            total += count
            if count < batchSize { return total }
        }
    }
}
