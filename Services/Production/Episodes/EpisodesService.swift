import Auth
import Contracts
import Foundation
import Postgres
import RPC

/// `rendezvous.production.v1.Episodes`: seasons, the deal and production pipelines for producers
/// (P3), and the membrane for everyone else (P4). Rules are documented in production.proto.
struct EpisodesService: EpisodesProvider {
    let pool: PostgresPool
    let episodes: EpisodeStore
    let settings: ProductionSettings

    func createSeason(_ request: Production.CreateSeasonRequest, context: ServerCallContext) async throws -> Production.Season {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        guard (1...999).contains(request.number) else { throw ProductionError.invalid("number must be 1-999") }
        guard request.title.count <= 200 else { throw ProductionError.invalid("title is at most 200 characters") }
        return try await pool.withTransaction { connection in
            try await EpisodeStore.createSeason(app: caller.app, number: request.number, title: request.title, on: connection)
        }
    }

    func listSeasons(_ request: Production.ListSeasonsRequest, context: ServerCallContext) async throws
        -> Production.ListSeasonsResponse {
        let caller = try ProductionCaller(context, settings: settings)
        let seasons = try await pool.withConnection { try await EpisodeStore.seasons(app: caller.app, on: $0) }
        return Production.ListSeasonsResponse(seasons: seasons)
    }

    func createEpisode(_ request: Production.CreateEpisodeRequest, context: ServerCallContext) async throws
        -> Production.Episode {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let season = try RequestID.parse(request.seasonID, field: "season_id")
        guard (1...99).contains(request.number) else { throw ProductionError.invalid("number must be 1-99") }
        let title = request.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(title.count) else { throw ProductionError.invalid("title must be 1-200 characters") }
        guard request.sponsor.count <= 200 else { throw ProductionError.invalid("sponsor is at most 200 characters") }
        return try await pool.withTransaction { connection in
            guard try await EpisodeStore.seasonExists(season, app: caller.app, on: connection) else {
                throw ProductionError.seasonNotFound
            }
            return try await EpisodeStore.create(app: caller.app, season: season, number: request.number, title: title,
                                                 sponsor: request.sponsor, on: connection)
        }
    }

    func getEpisode(_ request: Production.GetEpisodeRequest, context: ServerCallContext) async throws -> Production.EpisodeView {
        let caller = try ProductionCaller(context, settings: settings)
        let id = try RequestID.parse(request.episodeID, field: "episode_id")
        let episode = try await pool.withConnection { try await EpisodeStore.find(id, app: caller.app, on: $0) }
        guard let episode else { throw ProductionError.episodeNotFound }
        if caller.isProducer { return Production.EpisodeView(view: .episode(episode)) }
        guard episode.status == .published else { throw ProductionError.episodeNotFound }
        return Production.EpisodeView(view: .published(EpisodeStore.membrane(episode)))
    }

    func listEpisodes(_ request: Production.ListEpisodesRequest, context: ServerCallContext) async throws
        -> Production.ListEpisodesResponse {
        let caller = try ProductionCaller(context, settings: settings)
        let season = try RequestID.parse(request.seasonID, field: "season_id")
        let list = try await pool.withConnection { connection in
            guard try await EpisodeStore.seasonExists(season, app: caller.app, on: connection) else {
                throw ProductionError.seasonNotFound
            }
            return try await EpisodeStore.list(season: season, app: caller.app, publishedOnly: !caller.isProducer, on: connection)
        }
        return Production.ListEpisodesResponse(episodes: list.map { episode in
            Production.EpisodeView(view: caller.isProducer ? .episode(episode) : .published(EpisodeStore.membrane(episode)))
        })
    }

    func advanceDeal(_ request: Production.AdvanceDealRequest, context: ServerCallContext) async throws -> Production.Episode {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let id = try RequestID.parse(request.episodeID, field: "episode_id")
        guard (1...4).contains(request.stage.rawValue) else {
            throw ProductionError.invalid("stage must be IDENTIFIED, OUTREACH, NEGOTIATION or CONFIRMED")
        }
        if let value = request.dealValue { try MoneyRules.validate(value) }
        guard request.sponsor.count <= 200 else { throw ProductionError.invalid("sponsor is at most 200 characters") }
        return try await pool.withTransaction { connection in
            guard let episode = try await EpisodeStore.find(id, app: caller.app, lock: true, on: connection) else {
                throw ProductionError.episodeNotFound
            }
            if episode.pitchStage == request.stage { return episode }
            guard request.stage.rawValue == episode.pitchStage.rawValue + 1 else {
                throw ProductionError.outOfOrder(from: Self.name(episode.pitchStage), to: Self.name(request.stage))
            }
            try await EpisodeStore.setPitchStage(id, to: request.stage, sponsor: request.sponsor.isEmpty ? nil : request.sponsor,
                                                 dealValue: request.dealValue, on: connection)
            var advanced = try await EpisodeStore.find(id, app: caller.app, on: connection)!  // locked above
            if request.stage == .confirmed, let value = advanced.dealValue {
                try await EpisodeStore.postDealIncome(episode: advanced, app: caller.app, value: value, recordedBy: caller.id,
                                                      on: connection)
                advanced = try await EpisodeStore.find(id, app: caller.app, on: connection)!
            }
            return advanced
        }
    }

    func advanceProduction(_ request: Production.AdvanceProductionRequest, context: ServerCallContext) async throws
        -> Production.Episode {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let id = try RequestID.parse(request.episodeID, field: "episode_id")
        guard (2...6).contains(request.status.rawValue) else {
            throw ProductionError.invalid("status must be CASTING, SCHEDULED, FILMED, EDITING or PUBLISHED")
        }
        if let detail = request.behindTheGlass { try Self.validate(detail) }
        return try await pool.withTransaction { connection in
            guard let episode = try await EpisodeStore.find(id, app: caller.app, lock: true, on: connection) else {
                throw ProductionError.episodeNotFound
            }
            if episode.status == request.status { return episode }
            guard request.status.rawValue == episode.status.rawValue + 1 else {
                throw ProductionError.outOfOrder(from: Self.name(episode.status), to: Self.name(request.status))
            }
            if request.status == .casting, episode.pitchStage != .confirmed { throw ProductionError.dealNotConfirmed }
            if request.status == .published {
                if let detail = request.behindTheGlass {
                    try await EpisodeStore.setBehindTheGlass(id, detail, on: connection)
                } else if episode.behindTheGlass == nil {
                    throw ProductionError.behindTheGlassRequired
                }
            }
            try await EpisodeStore.setStatus(id, to: request.status, on: connection)
            let advanced = try await EpisodeStore.find(id, app: caller.app, on: connection)!  // locked above
            if request.status == .published { try await episodes.published(advanced, app: caller.app, on: connection) }
            return advanced
        }
    }

    func setBehindTheGlass(_ request: Production.SetBehindTheGlassRequest, context: ServerCallContext) async throws
        -> Production.Episode {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let id = try RequestID.parse(request.episodeID, field: "episode_id")
        guard let detail = request.behindTheGlass else { throw ProductionError.invalid("behind_the_glass is required") }
        try Self.validate(detail)
        return try await pool.withTransaction { connection in
            guard try await EpisodeStore.find(id, app: caller.app, lock: true, on: connection) != nil else {
                throw ProductionError.episodeNotFound
            }
            try await EpisodeStore.setBehindTheGlass(id, detail, on: connection)
            return try await EpisodeStore.find(id, app: caller.app, on: connection)!  // locked above
        }
    }

    func updateEpisode(_ request: Production.UpdateEpisodeRequest, context: ServerCallContext) async throws
        -> Production.Episode {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let id = try RequestID.parse(request.episodeID, field: "episode_id")
        let fields = Set(request.updateMask)
        let known: Set = ["title", "sponsor", "hook_seconds", "conflict_seconds", "resolution_seconds", "view_count",
                          "like_count", "comment_count"]
        guard !fields.isEmpty else { throw ProductionError.invalid("update_mask names no field") }
        guard fields.isSubset(of: known) else {
            throw ProductionError.invalid("update_mask names a field that cannot be updated here: it may name \(known.sorted().joined(separator: ", "))")
        }
        let values = request.episode ?? Production.Episode()
        if fields.contains("title") {
            guard (1...200).contains(values.title.trimmingCharacters(in: .whitespacesAndNewlines).count) else {
                throw ProductionError.invalid("title must be 1-200 characters")
            }
        }
        guard values.sponsor.count <= 200 else { throw ProductionError.invalid("sponsor is at most 200 characters") }
        guard values.hookSeconds >= 0, values.conflictSeconds >= 0, values.resolutionSeconds >= 0,
              values.viewCount >= 0, values.likeCount >= 0, values.commentCount >= 0 else {
            throw ProductionError.invalid("timestamps and counts must not be negative")
        }
        return try await pool.withTransaction { connection in
            guard try await EpisodeStore.find(id, app: caller.app, lock: true, on: connection) != nil else {
                throw ProductionError.episodeNotFound
            }
            try await EpisodeStore.update(id, with: values, fields: fields.sorted(), on: connection)
            return try await EpisodeStore.find(id, app: caller.app, on: connection)!  // locked above
        }
    }

    static func validate(_ detail: Production.BehindTheGlass) throws(ProductionError) {
        guard (1...5).contains(detail.type.rawValue) else { throw .invalid("behind_the_glass.type is required") }
        guard (1...500).contains(detail.text.trimmingCharacters(in: .whitespacesAndNewlines).count) else {
            throw .invalid("behind_the_glass.text must be 1-500 characters")
        }
    }

    static func name(_ stage: Production.PitchStage) -> String {
        switch stage {
        case .identified: "identified"
        case .outreach: "outreach"
        case .negotiation: "negotiation"
        case .confirmed: "confirmed"
        default: "unspecified"
        }
    }

    static func name(_ status: Production.EpisodeStatus) -> String {
        switch status {
        case .planning: "planning"
        case .casting: "casting"
        case .scheduled: "scheduled"
        case .filmed: "filmed"
        case .editing: "editing"
        case .published: "published"
        default: "unspecified"
        }
    }
}
