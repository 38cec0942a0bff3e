import Foundation
import Postgres

/// Who knows whom (`discovery.connections`, one row per direction so the mutual count is a
/// single join): mutual connections rank first in feeds.
enum ConnectionStore {
    /// Where a connection came from.
    enum Source: Int16 {
        case referral = 1
        case contacts = 2
        case instagram = 3
    }

    /// Those of `others` that `account` may learn of (as the feed shows people): active members
    /// of `app`, blocked by neither side, and not incognito unless they liked `account`. The
    /// rest are not counted or connected, so an import does not tell a blocked person, or anyone
    /// with a phone number, that its owner is a member.
    static func reachable(from account: UUID, among others: [UUID], app: String, on connection: Connection) async throws -> [UUID] {
        guard !others.isEmpty else { return [] }
        return try await connection.query("""
            SELECT p.account_id FROM discovery.profiles p
            WHERE p.account_id = ANY($2::uuid[]) AND p.app = $3 AND p.active AND p.admitted AND p.account_id <> $1
              AND NOT EXISTS (SELECT 1 FROM discovery.blocks b
                              WHERE (b.blocker_id = $1 AND b.blocked_id = p.account_id)
                                 OR (b.blocker_id = p.account_id AND b.blocked_id = $1))
              AND (NOT p.incognito OR EXISTS (SELECT 1 FROM discovery.swipes k
                                              WHERE k.swiper_id = p.account_id AND k.target_id = $1 AND k.action >= 2))
            """, [.uuid(account), .uuidArray(others), .text(app)]).map { try $0.decode(0, as: UUID.self) }
    }

    /// Connects `account` with each of `others` both ways; how many were new to `account`.
    static func connect(_ account: UUID, with others: [UUID], source: Source, on connection: Connection) async throws -> Int {
        guard !others.isEmpty else { return 0 }
        let rows = try await connection.query("""
            WITH pairs AS (
                SELECT $1::uuid AS a, other AS b FROM unnest($2::uuid[]) other
                UNION ALL SELECT other, $1::uuid FROM unnest($2::uuid[]) other
            )
            INSERT INTO discovery.connections (account_id, other_id, source)
            SELECT a, b, $3 FROM pairs ON CONFLICT DO NOTHING RETURNING account_id
            """, [.uuid(account), .uuidArray(others), .int16(source.rawValue)])
        return try rows.filter { try $0.decode(0, as: UUID.self) == account }.count
    }
}
