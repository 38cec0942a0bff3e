import Contracts
import Foundation
import Logging
import Postgres
import Runtime

/// Reveals events whose release time has come: each pass claims due events with FOR UPDATE
/// SKIP LOCKED (so several media instances share the work and never take the same event), marks
/// them revealed and appends EventRevealed in the same transaction, so every event is revealed
/// and announced exactly once.
struct RevealJob: Sendable {
    let pool: PostgresPool
    let outbox: Outbox
    let interval: Duration
    let logger: Logger

    /// Events claimed per transaction.
    static let batchSize = 50

    func run() async {
        while !Task.isCancelled {
            do {
                while try await revealDue() == Self.batchSize {}
            } catch is CancellationError {
                return
            } catch {
                logger.error("reveal pass failed", metadata: ["error": .string("\(error)")])
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// One batch: the number of events it revealed.
    func revealDue() async throws -> Int {
        try await pool.withTransaction { connection in
            let rows = try await connection.query("""
                WITH due AS (
                    SELECT id FROM media.events WHERE revealed_at IS NULL AND release_at <= now()
                    ORDER BY release_at LIMIT $1 FOR UPDATE SKIP LOCKED
                )
                UPDATE media.events e SET revealed_at = now() FROM due WHERE e.id = due.id
                RETURNING e.id, e.app, e.title, e.photo_count, \(UnixMicroseconds.sql("e.revealed_at")),
                    ARRAY(SELECT account_id::text FROM media.event_members m WHERE m.event_id = e.id ORDER BY joined_at, account_id)
                """, [.int(Self.batchSize)])
            for row in rows {
                let id: UUID = try row.decode(0)
                var event = Momento.EventRevealed()
                event.eventID = id.uuidString.lowercased()
                event.app = try row.decode(1)
                event.title = try row.decode(2)
                event.photoCount = try row.decode(3)
                event.revealedAt = Timestamp(microseconds: try row.decode(4))
                event.memberIDs = try row.decode(5)
                event.galleryLink = "momento://event/\(event.eventID)/gallery"
                try await outbox.appendAtCommit(OutboxEvent(type: "EventRevealed", app: event.app, aggregateID: event.eventID,
                                                            payload: event.serializedBytes()), on: connection)
            }
            return rows.count
        }
    }
}
