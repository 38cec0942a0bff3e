import Auth
import Contracts
import Foundation
import Postgres
import RPC

/// `rendezvous.production.v1.Content`: Hook / Build / Payoff / CTA scripts per episode and
/// platform, drafted from the cast's date reviews, producers only (P11).
struct ContentService: ContentProvider {
    let pool: PostgresPool
    let settings: ProductionSettings

    func generateScript(_ request: Production.GenerateScriptRequest, context: ServerCallContext) async throws
        -> Production.ContentScript {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let episodeID = try RequestID.parse(request.episodeID, field: "episode_id")
        try Self.validate(request.platform)
        return try await pool.withTransaction { connection in
            guard let episode = try await EpisodeStore.find(episodeID, app: caller.app, lock: true, on: connection) else {
                throw ProductionError.episodeNotFound
            }
            if let existing = try await ScriptStore.find(episode: episodeID, platform: request.platform, on: connection),
               existing.isFinal {
                throw ProductionError.scriptFinal
            }
            let cast = episode.castAccountIDs.compactMap(UUID.init(uuidString:))
            let reviews = cast.isEmpty ? [] : try await DateStore.reviews(of: cast, app: caller.app, limit: 20, on: connection)
            let template = ScriptTemplate(title: episode.title,
                                          restaurant: try await ScriptStore.restaurantName(of: episodeID, on: connection),
                                          reviews: reviews.map(\.review))
            let draft = template.draft(for: request.platform)
            var script = Production.ContentScript()
            (script.hook, script.build, script.payoff, script.cta) = draft
            script.generatedBy = "template"
            var sources: [String] = []
            for (date, _) in reviews where !sources.contains(date.lowercased) { sources.append(date.lowercased) }
            script.sourceDateIDs = sources
            return try await ScriptStore.upsert(script, episode: episodeID, platform: request.platform, on: connection)
        }
    }

    func updateScript(_ request: Production.UpdateScriptRequest, context: ServerCallContext) async throws
        -> Production.ContentScript {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let episodeID = try RequestID.parse(request.episodeID, field: "episode_id")
        try Self.validate(request.platform)
        let fields = Set(request.updateMask)
        let sections: Set = ["hook", "build", "payoff", "cta"]
        guard !fields.isEmpty, fields.isSubset(of: sections.union(["is_final"])) else {
            throw ProductionError.invalid("update_mask names hook, build, payoff, cta and/or is_final")
        }
        let given = request.script ?? Production.ContentScript()
        guard [given.hook, given.build, given.payoff, given.cta].allSatisfy({ $0.count <= 2_000 }) else {
            throw ProductionError.invalid("each section is at most 2,000 characters")
        }
        return try await pool.withTransaction { connection in
            guard try await EpisodeStore.find(episodeID, app: caller.app, lock: true, on: connection) != nil else {
                throw ProductionError.episodeNotFound
            }
            var script = try await ScriptStore.find(episode: episodeID, platform: request.platform, lock: true, on: connection)
                ?? Production.ContentScript()
            if fields.contains("hook") { script.hook = given.hook }
            if fields.contains("build") { script.build = given.build }
            if fields.contains("payoff") { script.payoff = given.payoff }
            if fields.contains("cta") { script.cta = given.cta }
            if fields.contains("is_final") { script.isFinal = given.isFinal }
            if !fields.isDisjoint(with: sections) || script.generatedBy.isEmpty { script.generatedBy = "manual" }
            return try await ScriptStore.upsert(script, episode: episodeID, platform: request.platform, on: connection)
        }
    }

    func listScripts(_ request: Production.ListScriptsRequest, context: ServerCallContext) async throws
        -> Production.ListScriptsResponse {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let episodeID = try RequestID.parse(request.episodeID, field: "episode_id")
        return try await pool.withConnection { connection in
            guard try await EpisodeStore.find(episodeID, app: caller.app, on: connection) != nil else {
                throw ProductionError.episodeNotFound
            }
            return Production.ListScriptsResponse(scripts: try await ScriptStore.list(episode: episodeID, on: connection))
        }
    }

    static func validate(_ platform: Production.ScriptPlatform) throws(ProductionError) {
        guard (1...3).contains(platform.rawValue) else { throw .invalid("platform must be TIKTOK, INSTAGRAM or YOUTUBE") }
    }
}
