import Contracts
import Foundation
import Postgres

/// Rows of `media.profile_photos`: positions 0..<n per account, rewritten whole on every change
/// under the account's lock (`lock`), which is what makes the maximum a hard limit.
enum PhotoSetStore {
    /// Serializes changes to `account`'s set for the rest of the transaction.
    static func lock(_ account: UUID, on connection: Connection) async throws {
        _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended('media.photos:' || $1::text, 0))",
                                       [.uuid(account)])
    }

    /// The set's photos in order, with their renditions' status (no URLs).
    static func photos(of account: UUID, on connection: Connection) async throws -> [ProfilePhotos.ProfilePhoto] {
        try photos(try await connection.query("""
            SELECT \(columns) FROM media.profile_photos p
            JOIN media.blobs b ON b.id = p.blob_id LEFT JOIN media.renditions r ON r.sha256 = b.sha256
            WHERE p.account_id = $1 ORDER BY p.position
            """, [.uuid(account)]))
    }

    /// The read of `account`'s set as a caller of `app` sees it, in one statement (GetPhotoSet
    /// sends it with other callers' reads): empty when the set holds another app's photo, as an
    /// account of another app has no set here. `photos(_:)` reads its answer.
    static func photos(of account: UUID, seenFrom app: String) -> PostgresStatement {
        PostgresStatement("""
            SELECT \(columns) FROM media.profile_photos p
            JOIN media.blobs b ON b.id = p.blob_id LEFT JOIN media.renditions r ON r.sha256 = b.sha256
            WHERE p.account_id = $1 AND NOT EXISTS (
                SELECT 1 FROM media.profile_photos o JOIN media.blobs ob ON ob.id = o.blob_id
                WHERE o.account_id = $1 AND ob.app <> $2)
            ORDER BY p.position
            """, [.uuid(account), .text(app)])
    }

    /// The photos in `rows` of one of the reads above, in order.
    static func photos(_ rows: PostgresRows) throws -> [ProfilePhotos.ProfilePhoto] {
        try rows.map {
            ProfilePhotos.ProfilePhoto(blobID: try $0.decode(0), width: try $0.decode(1), height: try $0.decode(2),
                                       contentType: try $0.decode(3),
                                       renditionStatus: Media.RenditionStatus(rawValue: Int32(try $0.decode(4, as: Int16.self))))
        }
    }

    private static let columns = "b.id::text, b.width, b.height, b.content_type, coalesce(r.status, 1::smallint)"

    /// Replaces the set's order with `ids`.
    static func write(_ ids: [UUID], of account: UUID, on connection: Connection) async throws {
        _ = try await connection.execute("DELETE FROM media.profile_photos WHERE account_id = $1", [.uuid(account)])
        guard !ids.isEmpty else { return }
        _ = try await connection.execute("""
            INSERT INTO media.profile_photos (account_id, blob_id, position)
            SELECT $1, id, ordinality - 1 FROM unnest($2::uuid[]) WITH ORDINALITY AS t(id, ordinality)
            """, [.uuid(account), .uuidArray(ids)])
    }

    /// Whether `account`'s onboarding is complete (from identity's ProfileUpdated).
    static func onboardingComplete(_ account: UUID, on connection: Connection) async throws -> Bool {
        try await connection.query("SELECT onboarding_complete FROM media.accounts WHERE account_id = $1", [.uuid(account)])
            .first?.decode(0) ?? false
    }
}
