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
