import Contracts
import Foundation
import Postgres
import Runtime

/// Discovery's matches, as production needs them for dates: who matched, in which app, and
/// whether the match has ended. Fed by discovery's MatchCreated and MatchEnded; a match ended by
/// an account's deletion goes, with its dates (whichever of AccountDeleted and MatchEnded comes
/// first, the end state holds nothing of the deleted account).
struct MatchProjection: Sendable {
    static let source = "discovery"
    static let eventTypes = ["MatchCreated", "MatchEnded"]
    /// Where discovery answers (host:port); unset, production has no matches and takes no dates.
    static let addressVariable = "RV_DISCOVERY_ADDRESS"

    func apply(_ event: Events.Event, on connection: Connection) async throws {
        switch event.type {
        case "MatchCreated":
            let created = try Discovery.MatchCreated(serializedBytes: event.payload)
            let accounts = created.accountIDs.compactMap(UUID.init(uuidString:))
            guard let id = UUID(uuidString: created.matchID), accounts.count == 2 else { return }
            try await connection.query("""
                INSERT INTO production.matches (id, app, account_ids, matched_at)
                VALUES ($1, $2, $3, to_timestamp($4::float8 / 1000000)) ON CONFLICT (id) DO NOTHING
                """, [.uuid(id), .text(created.app), .uuidArray(accounts), .int64(created.matchedAt?.microseconds ?? 0)])
        case "MatchEnded":
            let ended = try Discovery.MatchEnded(serializedBytes: event.payload)
            guard let id = UUID(uuidString: ended.matchID) else { return }
            guard ended.reason != .deleted else {
                try await connection.query("DELETE FROM production.matches WHERE id = $1", [.uuid(id)])
                return
            }
            try await connection.query("""
                UPDATE production.matches SET ended_at = coalesce(ended_at, to_timestamp($2::float8 / 1000000)) WHERE id = $1
                """, [.uuid(id), .int64(ended.endedAt?.microseconds ?? 0)])
            // Dates not yet had are off.
            try await connection.query("UPDATE production.dates SET status = 4 WHERE match_id = $1 AND status IN (1, 2)", [.uuid(id)])
        default:
            return
        }
    }
}
