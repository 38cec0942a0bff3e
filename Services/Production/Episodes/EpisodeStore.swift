import Contracts
import Foundation
import Postgres
import Runtime

/// Seasons and episodes: the deal and production pipelines live on the episode row (one table,
/// one truth), its cast on the applications assigned to it.
struct EpisodeStore: Sendable {
    let outbox: Outbox

    static let columns = """
        e.id, e.season_id, s.number, e.number, e.title, e.pitch_stage, e.status, e.sponsor, e.deal_value_minor,
        e.deal_currency, e.behind_the_glass_type, e.behind_the_glass_text, e.hook_seconds, e.conflict_seconds,
        e.resolution_seconds, e.view_count, e.like_count, e.comment_count,
        ARRAY(SELECT c.account_id FROM production.cast_members c WHERE c.episode_id = e.id ORDER BY c.account_id),
        \(UnixMicroseconds.sql("e.created_at")), \(UnixMicroseconds.sql("e.published_at"))
        """

    // MARK: Seasons

    static func createSeason(app: String, number: Int32, title: String, on connection: Connection) async throws
        -> Production.Season {
        do {
            let rows = try await connection.query("""
                INSERT INTO production.seasons (id, app, number, title) VALUES ($1, $2, $3, $4)
                RETURNING id, number, title, \(UnixMicroseconds.sql("created_at"))
                """, [.uuid(UUID.random()), .text(app), .int32(number), .text(title)])
            return Production.Season(id: try rows[0].decode(0, as: UUID.self).lowercased, number: try rows[0].decode(1),
                                     title: try rows[0].decode(2), publishedEpisodes: 0,
                                     createdAt: Timestamp(microseconds: try rows[0].decode(3)))
        } catch let error as PostgresError where error.code == .sqlState(.uniqueViolation) {
            throw ProductionError.seasonExists(number)
        }
    }

    static func seasons(app: String, on connection: Connection) async throws -> [Production.Season] {
        let rows = try await connection.query("""
            SELECT s.id, s.number, s.title, \(UnixMicroseconds.sql("s.created_at")),
                   (SELECT count(*) FROM production.episodes e WHERE e.season_id = s.id AND e.status = 6)::int4
            FROM production.seasons s WHERE s.app = $1 ORDER BY s.number
            """, [.text(app)])
        return try rows.map { row in
            Production.Season(id: try row.decode(0, as: UUID.self).lowercased, number: try row.decode(1), title: try row.decode(2),
                              publishedEpisodes: try row.decode(4), createdAt: Timestamp(microseconds: try row.decode(3)))
        }
    }

    static func seasonExists(_ id: UUID, app: String, on connection: Connection) async throws -> Bool {
        try await !connection.query("SELECT 1 FROM production.seasons WHERE id = $1 AND app = $2", [.uuid(id), .text(app)]).isEmpty
    }

    // MARK: Episodes

    static func create(app: String, season: UUID, number: Int32, title: String, sponsor: String,
                       on connection: Connection) async throws -> Production.Episode {
        let id = UUID.random()
        do {
            try await connection.query("""
                INSERT INTO production.episodes (id, app, season_id, number, title, sponsor) VALUES ($1, $2, $3, $4, $5, $6)
                """, [.uuid(id), .text(app), .uuid(season), .int32(number), .text(title), .text(sponsor)])
        } catch let error as PostgresError where error.code == .sqlState(.uniqueViolation) {
            throw ProductionError.episodeExists(number)
        }
        return try await find(id, app: app, on: connection)!  // inserted just above, in this transaction
    }

    /// One episode of `app`, as producers see it; `lock` holds its row for this transaction.
    static func find(_ id: UUID, app: String, lock: Bool = false, on connection: Connection) async throws
        -> Production.Episode? {
        let rows = try await connection.query("""
            SELECT \(columns) FROM production.episodes e JOIN production.seasons s ON s.id = e.season_id
            WHERE e.id = $1 AND e.app = $2 \(lock ? "FOR UPDATE OF e" : "")
            """, [.uuid(id), .text(app)])
        return try rows.first.map(episode)
    }

    /// A season's episodes by number; only the published ones when `publishedOnly`.
    static func list(season: UUID, app: String, publishedOnly: Bool, on connection: Connection) async throws
        -> [Production.Episode] {
        let rows = try await connection.query("""
            SELECT \(columns) FROM production.episodes e JOIN production.seasons s ON s.id = e.season_id
            WHERE e.season_id = $1 AND e.app = $2 AND (NOT $3 OR e.status = 6) ORDER BY e.number
            """, [.uuid(season), .text(app), .bool(publishedOnly)])
        return try rows.map(episode)
    }

    static func setPitchStage(_ id: UUID, to stage: Production.PitchStage, sponsor: String?, dealValue: Production.Money?,
                              on connection: Connection) async throws {
        try await connection.query("""
            UPDATE production.episodes SET pitch_stage = $2, sponsor = coalesce($3, sponsor),
                deal_value_minor = coalesce($4, deal_value_minor), deal_currency = coalesce($5, deal_currency)
            WHERE id = $1
            """, [.uuid(id), .int16(Int16(stage.rawValue)), .text(sponsor), .int64(dealValue?.amountMinor),
                  .text(dealValue?.currency)])
    }

    /// Posts a confirmed deal's value to the ledger as income, once per episode.
    static func postDealIncome(episode: Production.Episode, app: String, value: Production.Money, recordedBy: UUID,
                               on connection: Connection) async throws {
        try await connection.query("""
            INSERT INTO production.ledger_entries (id, app, entry_type, category, amount_minor, currency, season_id,
                                                   episode_id, description, recorded_by, source)
            VALUES ($1, $2, 1, 'sponsorship', $3, $4, $5::uuid, $6::uuid, $7, $8, 'deal')
            ON CONFLICT (episode_id) WHERE source = 'deal' DO NOTHING
            """, [.uuid(UUID.random()), .text(app), .int64(value.amountMinor), .text(value.currency), .text(episode.seasonID),
                  .text(episode.id), .text("deal confirmed\(episode.sponsor.isEmpty ? "" : ": \(episode.sponsor)")"),
                  .uuid(recordedBy)])
    }

    /// Moves the production status; the database's consent gate answers for SCHEDULED.
    static func setStatus(_ id: UUID, to status: Production.EpisodeStatus, on connection: Connection) async throws {
        do {
            try await connection.query("""
                UPDATE production.episodes SET status = $2,
                    published_at = CASE WHEN $2 = 6 THEN now() ELSE published_at END
                WHERE id = $1
                """, [.uuid(id), .int16(Int16(status.rawValue))])
        } catch let error as PostgresError where error.code == .sqlState(ProductionMigrations.consentRequired) {
            throw ProductionError.consentRequired
        }
    }

    func published(_ episode: Production.Episode, app: String, on connection: Connection) async throws {
        var event = Production.EpisodePublished()
        event.episodeID = episode.id
        event.app = app
        event.seasonNumber = episode.seasonNumber
        event.number = episode.number
        event.title = episode.title
        event.publishedAt = episode.publishedAt
        try await outbox.appendAtCommit(OutboxEvent(type: "EpisodePublished", app: app, aggregateID: episode.id,
                                                    payload: event.serializedBytes()), on: connection)
    }

    static func setBehindTheGlass(_ id: UUID, _ detail: Production.BehindTheGlass, on connection: Connection) async throws {
        try await connection.query("""
            UPDATE production.episodes SET behind_the_glass_type = $2, behind_the_glass_text = $3 WHERE id = $1
            """, [.uuid(id), .int16(Int16(detail.type.rawValue)), .text(detail.text)])
    }

    /// Writes the named columns of `episode` (already validated).
    static func update(_ id: UUID, with episode: Production.Episode, fields: [String], on connection: Connection) async throws {
        var assignments: [String] = []
        var values: [PostgresValue] = [.uuid(id)]
        func set(_ column: String, _ value: PostgresValue) {
            values.append(value)
            assignments.append("\(column) = $\(values.count)")
        }
        for field in fields {
            switch field {
            case "title": set("title", .text(episode.title))
            case "sponsor": set("sponsor", .text(episode.sponsor))
            case "hook_seconds": set("hook_seconds", .int32(episode.hookSeconds))
            case "conflict_seconds": set("conflict_seconds", .int32(episode.conflictSeconds))
            case "resolution_seconds": set("resolution_seconds", .int32(episode.resolutionSeconds))
            case "view_count": set("view_count", .int64(episode.viewCount))
            case "like_count": set("like_count", .int64(episode.likeCount))
            case "comment_count": set("comment_count", .int64(episode.commentCount))
            default: continue
            }
        }
        guard !assignments.isEmpty else { return }
        try await connection.query("UPDATE production.episodes SET \(assignments.joined(separator: ", ")) WHERE id = $1", values)
    }

    static func episode(_ row: PostgresRow) throws -> Production.Episode {
        var episode = Production.Episode()
        episode.id = try row.decode(0, as: UUID.self).lowercased
        episode.seasonID = try row.decode(1, as: UUID.self).lowercased
        episode.seasonNumber = try row.decode(2)
        episode.number = try row.decode(3)
        episode.title = try row.decode(4)
        episode.pitchStage = Production.PitchStage(rawValue: Int32(try row.decode(5, as: Int16.self)))
        episode.status = Production.EpisodeStatus(rawValue: Int32(try row.decode(6, as: Int16.self)))
        episode.sponsor = try row.decode(7)
        if let amount = try row.decode(8, as: Int64?.self), let currency = try row.decode(9, as: String?.self) {
            episode.dealValue = Production.Money(amountMinor: amount, currency: currency)
        }
        let glassType = Production.BehindTheGlassType(rawValue: Int32(try row.decode(10, as: Int16.self)))
        if glassType != .unspecified {
            episode.behindTheGlass = Production.BehindTheGlass(type: glassType, text: try row.decode(11))
        }
        episode.hookSeconds = try row.decode(12)
        episode.conflictSeconds = try row.decode(13)
        episode.resolutionSeconds = try row.decode(14)
        episode.viewCount = try row.decode(15)
        episode.likeCount = try row.decode(16)
        episode.commentCount = try row.decode(17)
        episode.castAccountIDs = try row.decode(18, as: [UUID].self).map(\.lowercased)
        episode.createdAt = Timestamp(microseconds: try row.decode(19))
        if let published = try row.decode(20, as: Int64?.self) { episode.publishedAt = Timestamp(microseconds: published) }
        return episode
    }

    /// What the membrane lets through of a published episode (P4).
    static func membrane(_ episode: Production.Episode) -> Production.PublishedEpisode {
        var view = Production.PublishedEpisode()
        view.id = episode.id
        view.seasonNumber = episode.seasonNumber
        view.number = episode.number
        view.title = episode.title
        view.behindTheGlass = episode.behindTheGlass
        view.hookSeconds = episode.hookSeconds
        view.conflictSeconds = episode.conflictSeconds
        view.resolutionSeconds = episode.resolutionSeconds
        view.viewCount = episode.viewCount
        view.likeCount = episode.likeCount
        view.commentCount = episode.commentCount
        view.publishedAt = episode.publishedAt
        return view
    }
}
