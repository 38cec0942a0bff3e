import Contracts
import Foundation
import Postgres

/// Applies identity's AccountDeleted: the account's blobs, their bytes that no other blob
/// shares, and its unfinished uploads go. Runs inside the event consumer's transaction; the
/// bytes are unlinked under each content's lock before the commit, and a failed commit replays
/// the event, so the end state is the same either way.
struct AccountPurge: Sendable {
    let storage: any BlobStorage

    static let eventTypes = ["AccountDeleted"]

    func apply(_ event: Events.Event, on connection: Connection) async throws {
        guard event.type == "AccountDeleted" else { return }
        let deleted = try Identity.AccountDeleted(serializedBytes: event.payload)
        guard let account = UUID(uuidString: deleted.accountID) else { return }
        let uploads: [UUID] = try await connection.query("""
            DELETE FROM media.uploads WHERE owner_id = $1 AND blob_id IS NULL RETURNING id
            """, [.uuid(account)]).map { try $0.decode(0) }
        for upload in uploads { try await storage.deletePart(upload) }
        _ = try await connection.execute("DELETE FROM media.accounts WHERE account_id = $1", [.uuid(account)])
        let contents: [String] = try await connection.query("""
            DELETE FROM media.blobs WHERE owner_id = $1 RETURNING sha256
            """, [.uuid(account)]).map { try $0.decode(0) }
        for sha256 in Set(contents).sorted() {
            try await BlobStore.lockContent(sha256, on: connection)
            if try await !BlobStore.isShared(sha256, on: connection) { try await storage.delete(sha256: sha256) }
        }
    }
}
