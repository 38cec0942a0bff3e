import Contracts
import CryptoCore
import Foundation
import Postgres
import Runtime

/// Consent texts (one current version per app, named by the SHA-256 of the text) and the
/// records of the ritual, which the database keeps insert-only.
enum ConsentStore {
    static let recordColumns = """
        id, episode_id, participant_id, record_type, typed_name, signature_media_id, consent_text_version, device_info,
        captured_by, \(UnixMicroseconds.sql("created_at"))
        """

    /// Lowercase hex SHA-256 of the text's UTF-8 bytes.
    static func versionHash(of text: String) -> String {
        SHA256Digest.hash(Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func current(app: String, on connection: Connection) async throws -> Production.ConsentTextVersion? {
        let rows = try await connection.query("""
            SELECT version_hash, consent_text, \(UnixMicroseconds.sql("effective_from"))
            FROM production.consent_text_versions WHERE app = $1 AND superseded_at IS NULL
            """, [.text(app)])
        return try rows.first.map { row in
            Production.ConsentTextVersion(versionHash: try row.decode(0), text: try row.decode(1),
                                          effectiveFrom: Timestamp(microseconds: try row.decode(2)))
        }
    }

    /// Makes `text` the app's current version, superseding the previous one; publishing the
    /// current text again changes nothing. Serialised per app, and the database refuses a
    /// second current version should anything get past that.
    static func publish(_ text: String, app: String, on connection: Connection) async throws -> Production.ConsentTextVersion {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtext('production.consent_text.' || $1))", [.text(app)])
        let hash = versionHash(of: text)
        if let current = try await current(app: app, on: connection), current.versionHash == hash { return current }
        let earlier = try await connection.query(
            "SELECT 1 FROM production.consent_text_versions WHERE app = $1 AND version_hash = $2", [.text(app), .text(hash)])
        guard earlier.isEmpty else {
            throw ProductionError.consentTextSuperseded
        }
        try await connection.query("""
            UPDATE production.consent_text_versions SET superseded_at = now() WHERE app = $1 AND superseded_at IS NULL
            """, [.text(app)])
        try await connection.query("""
            INSERT INTO production.consent_text_versions (version_hash, app, consent_text) VALUES ($1, $2, $3)
            """, [.text(hash), .text(app), .text(text)])
        return try await current(app: app, on: connection)!  // inserted just above
    }

    /// Whether `participant`'s latest record for the episode is a signature (their consent stands).
    static func hasStandingConsent(episode: UUID, participant: UUID, on connection: Connection) async throws -> Bool {
        let rows = try await connection.query("""
            SELECT record_type FROM production.consent_records WHERE episode_id = $1 AND participant_id = $2
            ORDER BY seq DESC LIMIT 1
            """, [.uuid(episode), .uuid(participant)])
        return try rows.first?.decode(0, as: Int16.self) == 1
    }

    static func insert(_ record: Production.ConsentRecord, app: String, on connection: Connection) async throws
        -> Production.ConsentRecord {
        let rows = try await connection.query("""
            INSERT INTO production.consent_records (id, app, episode_id, participant_id, record_type, typed_name,
                signature_media_id, consent_text_version, device_info, captured_by)
            VALUES ($1, $2, $3::uuid, $4::uuid, $5, $6, $7, $8, $9, $10::uuid) RETURNING \(recordColumns)
            """, [.uuid(UUID.random()), .text(app), .text(record.episodeID), .text(record.participantAccountID),
                  .int16(Int16(record.type.rawValue)), .text(record.typedName), .text(record.signatureMediaID),
                  .text(record.consentTextVersion), .text(record.deviceInfo), .text(record.capturedBy)])
        return try Self.record(rows[0])
    }

    static func records(episode: UUID, on connection: Connection) async throws -> [Production.ConsentRecord] {
        try await connection.query("SELECT \(recordColumns) FROM production.consent_records WHERE episode_id = $1 ORDER BY seq",
                                   [.uuid(episode)]).map(record)
    }

    static func records(participant: UUID, app: String, on connection: Connection) async throws -> [Production.ConsentRecord] {
        try await connection.query("""
            SELECT \(recordColumns) FROM production.consent_records WHERE participant_id = $1 AND app = $2 ORDER BY seq
            """, [.uuid(participant), .text(app)]).map(record)
    }

    /// The legal name on `participant`'s application in `app`, if they applied.
    static func legalName(of participant: UUID, app: String, on connection: Connection) async throws -> String? {
        let rows = try await connection.query("""
            SELECT legal_name FROM production.applications WHERE app = $1 AND account_id = $2 AND legal_name <> ''
            """, [.text(app), .uuid(participant)])
        return try rows.first?.decode(0)
    }

    static func record(_ row: PostgresRow) throws -> Production.ConsentRecord {
        var record = Production.ConsentRecord()
        record.id = try row.decode(0, as: UUID.self).lowercased
        record.episodeID = try row.decode(1, as: UUID.self).lowercased
        record.participantAccountID = try row.decode(2, as: UUID.self).lowercased
        record.type = Production.ConsentRecordType(rawValue: Int32(try row.decode(3, as: Int16.self)))
        record.typedName = try row.decode(4)
        record.signatureMediaID = try row.decode(5)
        record.consentTextVersion = try row.decode(6)
        record.deviceInfo = try row.decode(7)
        record.capturedBy = try row.decode(8, as: UUID.self).lowercased
        record.createdAt = Timestamp(microseconds: try row.decode(9))
        return record
    }
}
