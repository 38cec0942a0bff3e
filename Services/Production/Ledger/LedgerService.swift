import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.production.v1.Ledger`: the show's money, producers only (P7).
struct LedgerService: LedgerProvider {
    let pool: PostgresPool
    let settings: ProductionSettings

    func addLedgerEntry(_ request: Production.AddLedgerEntryRequest, context: ServerCallContext) async throws
        -> Production.LedgerEntry {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        guard request.type == .income || request.type == .expense else { throw ProductionError.invalid("type must be INCOME or EXPENSE") }
        guard MoneyRules.categories.contains(request.category) else {
            throw ProductionError.invalid("category must be one of \(MoneyRules.categories.sorted().joined(separator: ", "))")
        }
        guard let amount = request.amount else { throw ProductionError.invalidMoney("amount is required") }
        try MoneyRules.validate(amount)
        guard request.receiptMediaID.count <= 200 else { throw ProductionError.invalid("receipt_media_id is a media id") }
        guard request.description.count <= 500 else { throw ProductionError.invalid("description is at most 500 characters") }
        let episodeID = try RequestID.optional(request.episodeID, field: "episode_id")
        var seasonID = try RequestID.optional(request.seasonID, field: "season_id")
        return try await pool.withTransaction { connection in
            if let episodeID {
                guard let episode = try await EpisodeStore.find(episodeID, app: caller.app, on: connection) else {
                    throw ProductionError.episodeNotFound
                }
                let episodeSeason = UUID(uuidString: episode.seasonID)
                guard seasonID == nil || seasonID == episodeSeason else {
                    throw ProductionError.invalid("the episode belongs to another season")
                }
                seasonID = episodeSeason
            } else if let seasonID {
                guard try await EpisodeStore.seasonExists(seasonID, app: caller.app, on: connection) else {
                    throw ProductionError.seasonNotFound
                }
            }
            return try await LedgerStore.insert(request, amount: amount, app: caller.app, season: seasonID, episode: episodeID,
                                                recordedBy: caller.id, on: connection)
        }
    }

    func listLedgerEntries(_ request: Production.ListLedgerEntriesRequest, context: ServerCallContext) async throws
        -> Production.ListLedgerEntriesResponse {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let season = try RequestID.optional(request.seasonID, field: "season_id")
        let episode = try RequestID.optional(request.episodeID, field: "episode_id")
        let (size, after) = try Paging.page(request.pageSize, request.pageToken)
        let entries = try await pool.withConnection { connection in
            try await LedgerStore.list(app: caller.app, season: season, episode: episode, after: after, limit: size + 1,
                                       on: connection)
        }
        let page = entries.prefix(size)
        var response = Production.ListLedgerEntriesResponse(entries: Array(page))
        if entries.count > size, let last = page.last, let id = UUID(uuidString: last.id) {
            response.nextPageToken = PageCursor(microseconds: last.createdAt?.microseconds ?? 0, id: id).token
        }
        return response
    }

    func getProfitAndLoss(_ request: Production.GetProfitAndLossRequest, context: ServerCallContext) async throws
        -> Production.ProfitAndLoss {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let season = try RequestID.optional(request.seasonID, field: "season_id")
        let episode = try RequestID.optional(request.episodeID, field: "episode_id")
        return try await pool.withTransaction(isolation: .repeatableRead) { connection in
            switch (season, episode) {
            case (let season?, nil):
                guard try await EpisodeStore.seasonExists(season, app: caller.app, on: connection) else {
                    throw ProductionError.seasonNotFound
                }
                return try await LedgerStore.profitAndLoss(.season(season), on: connection)
            case (nil, let episode?):
                guard try await EpisodeStore.find(episode, app: caller.app, on: connection) != nil else {
                    throw ProductionError.episodeNotFound
                }
                return try await LedgerStore.profitAndLoss(.episode(episode), on: connection)
            default:
                throw ProductionError.invalid("name a season_id or an episode_id")
            }
        }
    }

    func getBreakevenProjection(_ request: Production.GetBreakevenProjectionRequest, context: ServerCallContext) async throws
        -> Production.BreakevenProjection {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let season = try RequestID.parse(request.seasonID, field: "season_id")
        guard MoneyRules.isCurrency(request.currency) else { throw ProductionError.invalidMoney("currency must be an ISO 4217 code") }
        guard request.expectedIncomePerEpisodeMinor >= 0, request.expectedCostPerEpisodeMinor >= 0 else {
            throw ProductionError.invalidMoney("assumptions must not be negative")
        }
        guard request.expectedIncomePerEpisodeMinor <= MoneyRules.maximumMinor,
              request.expectedCostPerEpisodeMinor <= MoneyRules.maximumMinor else {
            throw ProductionError.invalidMoney("assumptions are implausibly large")
        }
        guard (0...99).contains(request.plannedEpisodes) else { throw ProductionError.invalid("planned_episodes must be 1-99") }
        let planned = request.plannedEpisodes == 0 ? 10 : request.plannedEpisodes
        let (net, soFar) = try await pool.withConnection { connection in
            guard try await EpisodeStore.seasonExists(season, app: caller.app, on: connection) else {
                throw ProductionError.seasonNotFound
            }
            return try await LedgerStore.seasonActuals(season, currency: request.currency, on: connection)
        }
        return Breakeven.project(currency: request.currency, actualNet: net, episodesSoFar: soFar, planned: planned,
                                 income: request.expectedIncomePerEpisodeMinor, cost: request.expectedCostPerEpisodeMinor)
    }

    func getSponsorReport(_ request: Production.GetSponsorReportRequest, context: ServerCallContext) async throws
        -> Production.SponsorReport {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let season = try RequestID.parse(request.seasonID, field: "season_id")
        guard MoneyRules.isCurrency(request.currency) else { throw ProductionError.invalidMoney("currency must be an ISO 4217 code") }
        let lines = try await pool.withConnection { connection in
            guard try await EpisodeStore.seasonExists(season, app: caller.app, on: connection) else {
                throw ProductionError.seasonNotFound
            }
            return try await LedgerStore.sponsorLines(season, currency: request.currency, on: connection)
        }
        return Production.SponsorReport(currency: request.currency, episodes: lines)
    }
}

/// The breakeven arithmetic, apart from the database so its edges are plain to test.
enum Breakeven {
    static func project(currency: String, actualNet: Int64, episodesSoFar: Int32, planned: Int32, income: Int64, cost: Int64)
        -> Production.BreakevenProjection {
        var projection = Production.BreakevenProjection()
        projection.currency = currency
        projection.actualNetMinor = actualNet
        projection.episodesSoFar = episodesSoFar
        let margin = income - cost
        let remaining = Int64(max(0, planned - episodesSoFar))
        if actualNet >= 0 {
            projection.episodesToBreakeven = 0
        } else if margin <= 0 {
            projection.episodesToBreakeven = -1
        } else {
            projection.episodesToBreakeven = Int32(clamping: (-actualNet + margin - 1) / margin)
        }
        projection.withinSeason = projection.episodesToBreakeven >= 0 && Int64(projection.episodesToBreakeven) <= remaining
        projection.projectedSeasonNetMinor = actualNet + remaining * margin
        return projection
    }
}
