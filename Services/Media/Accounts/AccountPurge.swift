import Contracts
import Foundation
import Postgres

/// Applies identity's AccountDeleted: the account's blobs, their bytes that no other blob
/// shares (with the photos' renditions), and its unfinished uploads go. Runs inside the event
/// consumer's transaction; the bytes are unlinked under each content's lock before the commit, and a failed commit replays
/// the event, so the end state is the same either way.
struct AccountPurge: Sendable {
    let storage: any BlobStorage

    static let eventTypes = ["AccountDeleted"]

    /// The account's events go with it; in others its photos and membership go, counters kept exact.
    static func leaveEvents(_ account: UUID, on connection: Connection) async throws {
        _ = try await connection.execute("DELETE FROM media.events WHERE creator_id = $1", [.uuid(account)])
        _ = try await connection.execute("""
            WITH gone AS (DELETE FROM media.event_photos WHERE account_id = $1 RETURNING event_id),
                 counts AS (SELECT event_id, count(*)::int AS n FROM gone GROUP BY event_id)
            UPDATE media.events e SET photo_count = e.photo_count - counts.n FROM counts WHERE e.id = counts.event_id
            """, [.uuid(account)])
        _ = try await connection.execute("""
            WITH gone AS (DELETE FROM media.event_members WHERE account_id = $1 RETURNING event_id)
            UPDATE media.events e SET member_count = e.member_count - 1 FROM gone WHERE e.id = gone.event_id
            """, [.uuid(account)])
    }

    func apply(_ event: Events.Event, on connection: Connection) async throws {
        guard event.type == "AccountDeleted" else { return }
        let deleted = try Identity.AccountDeleted(serializedBytes: event.payload)
        guard let account = UUID(uuidString: deleted.accountID) else { return }
        let uploads: [UUID] = try await connection.query("""
            DELETE FROM media.uploads WHERE owner_id = $1 AND blob_id IS NULL RETURNING id
            """, [.uuid(account)]).map { try $0.decode(0) }
        for upload in uploads { try await storage.deletePart(upload) }
        try await Self.leaveEvents(account, on: connection)
        _ = try await connection.execute("DELETE FROM media.accounts WHERE account_id = $1", [.uuid(account)])
        let contents: [String] = try await connection.query("""
            DELETE FROM media.blobs WHERE owner_id = $1 RETURNING sha256
            """, [.uuid(account)]).map { try $0.decode(0) }
        for sha256 in Set(contents).sorted() {
            try await BlobStore.lockContent(sha256, on: connection)
            if try await !BlobStore.isShared(sha256, on: connection) {
                try await storage.delete(sha256: sha256)
                for key in try await RenditionStore.delete(sha256, on: connection) { try await storage.delete(sha256: key) }
            }
        }
    }
}
