import Contracts
import Foundation
import Postgres

/// One row of `media.blobs`.
struct BlobRecord: Sendable {
    var id: UUID
    var app: String
    var ownerID: UUID
    var kind: Media.BlobKind
    var contentType: String
    var size: Int64
    var sha256: String
    var width: Int32
    var height: Int32
    var createdAt: Int64

    /// The columns `init(row:)` reads, in order.
    static let columns = "id, app, owner_id, kind, content_type, size, sha256, width, height, "
        + UnixMicroseconds.sql("created_at")

    /// Reads the `columns` starting at column `offset`.
    init(row: PostgresRow, offset: Int = 0) throws {
        id = try row.decode(offset)
        app = try row.decode(offset + 1)
        ownerID = try row.decode(offset + 2)
        kind = Media.BlobKind(rawValue: Int32(try row.decode(offset + 3, as: Int16.self)))
        contentType = try row.decode(offset + 4)
        size = try row.decode(offset + 5)
        sha256 = try row.decode(offset + 6)
        width = try row.decode(offset + 7)
        height = try row.decode(offset + 8)
        createdAt = try row.decode(offset + 9)
    }

    var message: Media.Blob {
        Media.Blob(blobID: id.uuidString.lowercased(), ownerID: ownerID.uuidString.lowercased(), kind: kind,
                   contentType: contentType, size: size, sha256: sha256, width: width, height: height,
                   createdAt: Timestamp(microseconds: createdAt))
    }
}
