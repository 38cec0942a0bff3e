import Contracts
import Foundation
import RPC
import Runtime

/// `ExportMyData`: what media holds about the caller, and a signed URL to each of their files
/// (rendezvous/privacy/v1/privacy.proto).
extension MediaService {
    /// Media's sections: every table that holds members' data, and the rows of it that are the member's.
    static let personalData: [PersonalDataSection] = [
        .init("accounts", "The member's media settings.", where: "t.account_id = $1", order: "t.account_id"),
        .init("blobs", "The files the member uploaded: kind, type, size, content hash, dimensions (the bytes: `files`).",
              where: "t.owner_id = $1"),
        .init("uploads", "The member's uploads, finished or not.", where: "t.owner_id = $1"),
        .init("profile_photos", "The member's profile photos, in order.", where: "t.account_id = $1", order: "t.position"),
        .init("events", "The Momento events the member created or joined.",
              where: """
                  t.id IN (SELECT id FROM media.events WHERE creator_id = $1
                           UNION SELECT event_id FROM media.event_members WHERE account_id = $1)
                  """),
        .init("event_members", "When the member joined each Momento event.", where: "t.account_id = $1", order: "t.joined_at"),
        .init("event_photos", "The photos the member added to Momento events.", where: "t.account_id = $1", order: "t.added_at"),
    ]

    /// How long the export's file URLs are valid.
    static let exportURLLifetime: Int64 = 3_600

    func exportMyData(_ request: Privacy.ExportMyDataRequest, context: ServerCallContext) async throws -> Privacy.PersonalDataExport {
        var export = try await PersonalDataExporter(service: "media", sections: Self.personalData, pool: pool)
            .export(request, context: context)
        guard let owner = UUID(uuidString: export.accountID) else { return export }  // the exporter wrote a UUID
        let expires = Int64(Date().timeIntervalSince1970) + Self.exportURLLifetime
        export.files = try await pool.withConnection { connection in
            try await connection.query("SELECT id, content_type, size FROM media.blobs WHERE owner_id = $1 ORDER BY created_at, id",
                                       [.uuid(owner)]).map { row in
                let id: UUID = try row.decode(0)
                return Privacy.PersonalDataFile(blobID: id.uuidString.lowercased(), contentType: try row.decode(1),
                                                size: try row.decode(2), url: signer.sign(blob: id, expires: expires),
                                                urlExpiresAt: Timestamp(seconds: expires))
            }
        }
        return export
    }
}
