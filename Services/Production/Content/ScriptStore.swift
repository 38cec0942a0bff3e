import Contracts
import Foundation
import Postgres
import Runtime

/// Content scripts, one per episode and platform.
enum ScriptStore {
    static let columns = """
        id, episode_id, platform, hook, build, payoff, cta, generated_by, is_final, source_date_ids,
        \(UnixMicroseconds.sql("updated_at"))
        """

    static func find(episode: UUID, platform: Production.ScriptPlatform, lock: Bool = false, on connection: Connection) async throws
        -> Production.ContentScript? {
        try await connection.query("""
            SELECT \(columns) FROM production.content_scripts WHERE episode_id = $1 AND platform = $2 \(lock ? "FOR UPDATE" : "")
            """, [.uuid(episode), .int16(Int16(platform.rawValue))]).first.map(script)
    }

    static func list(episode: UUID, on connection: Connection) async throws -> [Production.ContentScript] {
        try await connection.query("SELECT \(columns) FROM production.content_scripts WHERE episode_id = $1 ORDER BY platform",
                                   [.uuid(episode)]).map(script)
    }

    /// Writes the whole script for (episode, platform), creating it if needed.
    static func upsert(_ script: Production.ContentScript, episode: UUID, platform: Production.ScriptPlatform,
                       on connection: Connection) async throws -> Production.ContentScript {
        let rows = try await connection.query("""
            INSERT INTO production.content_scripts (id, episode_id, platform, hook, build, payoff, cta, generated_by, is_final,
                                                    source_date_ids)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            ON CONFLICT (episode_id, platform) DO UPDATE SET hook = excluded.hook, build = excluded.build,
                payoff = excluded.payoff, cta = excluded.cta, generated_by = excluded.generated_by, is_final = excluded.is_final,
                source_date_ids = excluded.source_date_ids, updated_at = now()
            RETURNING \(columns)
            """, [.uuid(UUID.random()), .uuid(episode), .int16(Int16(platform.rawValue)), .text(script.hook), .text(script.build),
                  .text(script.payoff), .text(script.cta), .text(script.generatedBy), .bool(script.isFinal),
                  .uuidArray(script.sourceDateIDs.compactMap(UUID.init(uuidString:)))])
        return try Self.script(rows[0])
    }

    /// The name of the episode's restaurant, if its shoot has one.
    static func restaurantName(of episode: UUID, on connection: Connection) async throws -> String {
        try await connection.query("""
            SELECT r.name FROM production.episodes e JOIN production.restaurants r ON r.id = e.restaurant_id WHERE e.id = $1
            """, [.uuid(episode)]).first?.decode(0, as: String.self) ?? ""
    }

    static func script(_ row: PostgresRow) throws -> Production.ContentScript {
        var script = Production.ContentScript()
        script.id = try row.decode(0, as: UUID.self).lowercased
        script.episodeID = try row.decode(1, as: UUID.self).lowercased
        script.platform = Production.ScriptPlatform(rawValue: Int32(try row.decode(2, as: Int16.self)))
        script.hook = try row.decode(3)
        script.build = try row.decode(4)
        script.payoff = try row.decode(5)
        script.cta = try row.decode(6)
        script.generatedBy = try row.decode(7)
        script.isFinal = try row.decode(8)
        script.sourceDateIDs = try row.decode(9, as: [UUID].self).map(\.lowercased)
        script.updatedAt = Timestamp(microseconds: try row.decode(10))
        return script
    }
}
