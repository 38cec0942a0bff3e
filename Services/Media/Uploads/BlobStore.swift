import Contracts
import Foundation
import Postgres

/// Rows of `media.blobs` and `media.uploads`. Writers of one content hash serialize on an
/// advisory lock (`lockContent`), so a blob's bytes are never unlinked while a new row starts
/// to share them.
enum BlobStore {
    struct Upload: Sendable {
        var id: UUID
        var kind: Media.BlobKind
        var contentType: String
        var size: Int64
        var blobID: UUID?
        var expiresAt: Int64
    }

    static func createUpload(id: UUID, app: String, owner: UUID, kind: Media.BlobKind, contentType: String, size: Int64,
                             on connection: Connection) async throws -> Upload {
        let rows = try await connection.query("""
            INSERT INTO media.uploads (id, app, owner_id, kind, content_type, size) VALUES ($1, $2, $3, $4, $5, $6)
            RETURNING \(UnixMicroseconds.sql("expires_at"))
            """, [.uuid(id), .text(app), .uuid(owner), .int16(Int16(kind.rawValue)), .text(contentType), .int64(size)])
        return Upload(id: id, kind: kind, contentType: contentType, size: size, blobID: nil, expiresAt: try rows[0].decode(0))
    }

    /// The owner's unexpired upload `id` of `app`.
    static func upload(_ id: UUID, owner: UUID, app: String, on connection: Connection) async throws -> Upload? {
        guard let row = try await connection.query("""
            SELECT kind, content_type, size, blob_id, \(UnixMicroseconds.sql("expires_at")) FROM media.uploads
            WHERE id = $1 AND owner_id = $2 AND app = $3 AND (expires_at > now() OR blob_id IS NOT NULL)
            """, [.uuid(id), .uuid(owner), .text(app)]).first else { return nil }
        return Upload(id: id, kind: Media.BlobKind(rawValue: Int32(try row.decode(0, as: Int16.self))),
                      contentType: try row.decode(1), size: try row.decode(2), blobID: try row.decode(3),
                      expiresAt: try row.decode(4))
    }

    /// Takes the upload's writer lease for `seconds`; false while another stream holds it.
    static func lease(_ id: UUID, seconds: Int, on connection: Connection) async throws -> Bool {
        try await connection.execute("""
            UPDATE media.uploads SET lease_until = now() + make_interval(secs => $2)
            WHERE id = $1 AND blob_id IS NULL AND (lease_until IS NULL OR lease_until < now())
            """, [.uuid(id), .int64(Int64(seconds))]) == 1
    }

    static func release(_ id: UUID, on connection: Connection) async throws {
        _ = try await connection.execute("UPDATE media.uploads SET lease_until = NULL WHERE id = $1", [.uuid(id)])
    }

    static func deleteUpload(_ id: UUID, on connection: Connection) async throws {
        _ = try await connection.execute("DELETE FROM media.uploads WHERE id = $1", [.uuid(id)])
    }

    /// Serializes writers of content `sha256` for the rest of the transaction.
    static func lockContent(_ sha256: String, on connection: Connection) async throws {
        _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended('media.blob:' || $1, 0))",
                                       [.text(sha256)])
    }

    /// Records the blob an upload became and marks the upload complete.
    static func insertBlob(id: UUID, upload: Upload, app: String, owner: UUID, sha256: String,
                           dimensions: ImageDimensions?, on connection: Connection) async throws -> BlobRecord {
        let rows = try await connection.query("""
            INSERT INTO media.blobs (id, app, owner_id, kind, content_type, size, sha256, width, height)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING \(BlobRecord.columns)
            """, [.uuid(id), .text(app), .uuid(owner), .int16(Int16(upload.kind.rawValue)), .text(upload.contentType),
                  .int64(upload.size), .text(sha256), .int32(Int32(dimensions?.width ?? 0)),
                  .int32(Int32(dimensions?.height ?? 0))])
        _ = try await connection.execute("UPDATE media.uploads SET blob_id = $2, lease_until = NULL WHERE id = $1",
                                         [.uuid(upload.id), .uuid(id)])
        return try BlobRecord(row: rows[0])
    }

    static func blob(_ id: UUID, on connection: Connection) async throws -> BlobRecord? {
        try await connection.query("SELECT \(BlobRecord.columns) FROM media.blobs WHERE id = $1", [.uuid(id)])
            .first.map { try BlobRecord(row: $0) }
    }

    /// Whether any blob still holds content `sha256`.
    static func isShared(_ sha256: String, on connection: Connection) async throws -> Bool {
        try await connection.query("SELECT EXISTS (SELECT 1 FROM media.blobs WHERE sha256 = $1)", [.text(sha256)])[0].decode(0)
    }
}
