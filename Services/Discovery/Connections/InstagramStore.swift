import Foundation
import Postgres

/// Members' linked Instagram accounts (`discovery.instagram_links`, one per member and one
/// member per Instagram account in an app) and the Instagram accounts each member's last import
/// listed (`discovery.instagram_related`), so that whoever links later is found by those who
/// imported before.
enum InstagramStore {
    /// Links `account` to `instagram` (moving the link from another member of the app who had it:
    /// the newer token is the proof), replaces the accounts its import listed, and returns the
    /// members of `app` related to it either way. Imports of one app are serialised, so two
    /// members who list each other at the same instant still find each other.
    static func link(_ account: UUID, app: String, to instagram: InstagramGraph.Account,
                     on connection: Connection) async throws -> [UUID] {
        _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended('instagram:' || $1, 7102))", [.text(app)])
        // Deletes first, in statements of their own: a DELETE in a WITH of the INSERT would run
        // beside it, and the INSERT could still meet the rows it replaces.
        _ = try await connection.execute("""
            DELETE FROM discovery.instagram_links WHERE app = $2 AND instagram_id = $3 AND account_id <> $1
            """, [.uuid(account), .text(app), .text(instagram.id)])
        _ = try await connection.execute("""
            INSERT INTO discovery.instagram_links (account_id, app, instagram_id, username) VALUES ($1, $2, $3, $4)
            ON CONFLICT (account_id) DO UPDATE SET instagram_id = EXCLUDED.instagram_id, username = EXCLUDED.username,
                                                   linked_at = now()
            """, [.uuid(account), .text(app), .text(instagram.id), .text(instagram.username)])
        _ = try await connection.execute("DELETE FROM discovery.instagram_related WHERE account_id = $1", [.uuid(account)])
        _ = try await connection.execute("""
            INSERT INTO discovery.instagram_related (account_id, instagram_id)
            SELECT $1, id FROM unnest($2::text[]) id ON CONFLICT DO NOTHING
            """, [.uuid(account), .textArray(Array(instagram.related))])
        let rows = try await connection.query("""
            SELECT account_id FROM discovery.instagram_links WHERE app = $2 AND instagram_id = ANY($3::text[]) AND account_id <> $1
            UNION
            SELECT r.account_id FROM discovery.instagram_related r
            JOIN discovery.instagram_links l ON l.account_id = r.account_id AND l.app = $2
            WHERE r.instagram_id = $4 AND r.account_id <> $1
            """, [.uuid(account), .text(app), .textArray(Array(instagram.related)), .text(instagram.id)])
        return try rows.map { try $0.decode(0, as: UUID.self) }
    }
}
