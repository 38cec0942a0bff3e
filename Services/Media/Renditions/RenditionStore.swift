import Contracts
import CryptoCore
import Foundation
import Postgres

/// Rows of `media.renditions` (one per photo content, by the original's SHA-256) and
/// `media.rendition_files` (its full-size rendition and thumbnails). A content is claimed with
/// a lease (FOR UPDATE SKIP LOCKED), and only the claim's holder may record the result, so each
/// content is rendered once however many instances and requests want it.
enum RenditionStore {
    /// A content's renditions as a listing or a download sees them.
    struct Renditions: Sendable {
        var status: Media.RenditionStatus
        var files: [Int32: File]
    }

    /// One rendition's bytes in storage.
    struct File: Sendable {
        var side: Int32
        var contentType: String
        var size: Int64
        var width: Int32
        var height: Int32
        /// Where the bytes are (`key(source:side:)`), also the ETag.
        var key: String
    }

    /// A content claimed for rendering until `lease` is taken over.
    struct Claim: Sendable {
        var sha256: String
        var contentType: String
        var lease: UUID
        var attempts: Int32
    }

    /// Storage key of a rendition: derived from the original's hash and the variant, so it is
    /// the same from every instance and never shared by two contents (nothing to count on delete).
    static func key(source sha256: String, side: Int32) -> String {
        SHA256Digest.hash(Array("rendition:\(sha256):\(side)".utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// How the failure of a content whose attempts ran out (storage or the database, not the
    /// photo) begins: such a content is asked for again by the next upload of the same bytes.
    static let gaveUp = "gave up after "

    /// Asks for `sha256`'s renditions; nothing happens when they were asked for before, unless
    /// they failed only because their attempts ran out: then they are pending again.
    static func request(_ sha256: String, contentType: String, on connection: Connection) async throws {
        _ = try await connection.execute("""
            INSERT INTO media.renditions (sha256, content_type) VALUES ($1, $2)
            ON CONFLICT (sha256) DO UPDATE SET status = 1, attempts = 0, failure = NULL, lease_id = NULL, lease_until = NULL
            WHERE media.renditions.status = 3 AND starts_with(media.renditions.failure, $3)
            """, [.text(sha256), .text(contentType), .text(gaveUp)])
    }

    /// Claims up to `limit` pending contents (only `sha256` when given) for `seconds`.
    static func claim(limit: Int, only sha256: String? = nil, seconds: Int,
                      on connection: Connection) async throws -> [Claim] {
        try await connection.query("""
            WITH due AS (
                SELECT sha256 FROM media.renditions
                WHERE status = 1 AND (lease_until IS NULL OR lease_until < now()) AND ($2::text IS NULL OR sha256 = $2)
                ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED
            )
            UPDATE media.renditions r SET lease_id = gen_random_uuid(), lease_until = now() + make_interval(secs => $3),
                attempts = attempts + 1
            FROM due WHERE r.sha256 = due.sha256
            RETURNING r.sha256, r.content_type, r.lease_id, r.attempts
            """, [.int(limit), .text(sha256), .int64(Int64(seconds))]).map {
            Claim(sha256: try $0.decode(0), contentType: try $0.decode(1), lease: try $0.decode(2), attempts: try $0.decode(3))
        }
    }

    /// Records the claim's renditions; false when the lease was lost (another holder records).
    static func complete(_ claim: Claim, files: [File], on connection: Connection) async throws -> Bool {
        guard try await connection.execute("""
            UPDATE media.renditions SET status = 2, lease_id = NULL, lease_until = NULL, failure = NULL, ready_at = now()
            WHERE sha256 = $1 AND lease_id = $2
            """, [.text(claim.sha256), .uuid(claim.lease)]) == 1 else { return false }
        for file in files {
            _ = try await connection.execute("""
                INSERT INTO media.rendition_files (sha256, side, content_type, size, width, height, key)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                """, [.text(claim.sha256), .int32(file.side), .text(file.contentType), .int64(file.size), .int32(file.width),
                      .int32(file.height), .text(file.key)])
        }
        return true
    }

    /// Marks the content as one that cannot be rendered (`reason` is for operators, not users).
    static func fail(_ claim: Claim, reason: String, on connection: Connection) async throws {
        _ = try await connection.execute("""
            UPDATE media.renditions SET status = 3, lease_id = NULL, lease_until = NULL, failure = $3
            WHERE sha256 = $1 AND lease_id = $2
            """, [.text(claim.sha256), .uuid(claim.lease), .text(reason)])
    }

    /// Gives the claim back after a passing failure (storage, database): retried after `seconds`.
    static func release(_ claim: Claim, retryAfter seconds: Int, on connection: Connection) async throws {
        _ = try await connection.execute("""
            UPDATE media.renditions SET lease_id = NULL, lease_until = now() + make_interval(secs => $3)
            WHERE sha256 = $1 AND lease_id = $2
            """, [.text(claim.sha256), .uuid(claim.lease), .int64(Int64(seconds))])
    }

    /// The renditions of each content in `sha256s` that has a row.
    static func renditions(_ sha256s: [String], on connection: Connection) async throws -> [String: Renditions] {
        var found: [String: Renditions] = [:]
        let rows = try await connection.query("""
            SELECT r.sha256, r.status, f.side, f.content_type, f.size, f.width, f.height, f.key
            FROM media.renditions r LEFT JOIN media.rendition_files f ON f.sha256 = r.sha256
            WHERE r.sha256 = ANY($1)
            """, [.textArray(sha256s)])
        for row in rows {
            let sha256: String = try row.decode(0)
            let status = Media.RenditionStatus(rawValue: Int32(try row.decode(1, as: Int16.self)))
            var entry = found[sha256] ?? Renditions(status: status, files: [:])
            if let side = try row.decode(2, as: Int32?.self) {
                entry.files[side] = File(side: side, contentType: try row.decode(3), size: try row.decode(4), width: try row.decode(5),
                                         height: try row.decode(6), key: try row.decode(7))
            }
            found[sha256] = entry
        }
        return found
    }

    /// Each content's status (PENDING for one with no row yet: its first download renders it).
    static func statuses(_ sha256s: [String], on connection: Connection) async throws -> [String: Media.RenditionStatus] {
        var statuses: [String: Media.RenditionStatus] = [:]
        for sha256 in sha256s { statuses[sha256] = .pending }
        for row in try await connection.query("SELECT sha256, status FROM media.renditions WHERE sha256 = ANY($1)",
                                              [.textArray(sha256s)]) {
            statuses[try row.decode(0)] = Media.RenditionStatus(rawValue: Int32(try row.decode(1, as: Int16.self)))
        }
        return statuses
    }

    /// Makes a ready content pending again (its renditions' bytes are missing from storage).
    static func reset(_ sha256: String, on connection: Connection) async throws {
        _ = try await connection.execute("DELETE FROM media.rendition_files WHERE sha256 = $1", [.text(sha256)])
        _ = try await connection.execute("""
            UPDATE media.renditions SET status = 1, lease_id = NULL, lease_until = NULL, ready_at = NULL
            WHERE sha256 = $1 AND status = 2
            """, [.text(sha256)])
    }

    /// Removes `sha256`'s renditions (the original's bytes are gone): the storage keys to delete.
    static func delete(_ sha256: String, on connection: Connection) async throws -> [String] {
        let keys: [String] = try await connection.query("""
            DELETE FROM media.rendition_files WHERE sha256 = $1 RETURNING key
            """, [.text(sha256)]).map { try $0.decode(0) }
        _ = try await connection.execute("DELETE FROM media.renditions WHERE sha256 = $1", [.text(sha256)])
        return keys
    }
}
