import Foundation
import Logging
import Postgres

/// Removes unfinished uploads past their expiry, rows and part files. Each pass claims a batch
/// with FOR UPDATE SKIP LOCKED, so several instances sweep without waiting on each other; the
/// part goes before the row, so a failure leaves the row to be swept again.
struct UploadSweeper: Sendable {
    let pool: PostgresPool
    let storage: any BlobStorage
    let interval: Duration
    let logger: Logger

    static let batchSize = 100

    func run() async {
        while !Task.isCancelled {
            do {
                while try await sweep() == Self.batchSize {}
            } catch is CancellationError {
                return
            } catch {
                logger.error("upload sweep failed", metadata: ["error": .string("\(error)")])
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// One batch: the number of uploads removed.
    func sweep() async throws -> Int {
        try await pool.withTransaction { connection in
            let expired: [UUID] = try await connection.query("""
                SELECT id FROM media.uploads WHERE blob_id IS NULL AND expires_at < now()
                  AND (lease_until IS NULL OR lease_until < now())
                ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
                """, [.int(Self.batchSize)]).map { try $0.decode(0) }
            for id in expired { try await storage.deletePart(id) }
            if !expired.isEmpty {
                _ = try await connection.execute("DELETE FROM media.uploads WHERE id = ANY($1)", [.uuidArray(expired)])
            }
            return expired.count
        }
    }
}
