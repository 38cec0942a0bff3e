import Auth
import Contracts
import Foundation
import Postgres
import RPC

/// `rendezvous.production.v1.Studio`: the curated restaurants every member browses (P8), and
/// the producers' shoot calendar, pre-shoot checklist, wardrobe and outfits (P9).
struct StudioService: StudioProvider {
    let pool: PostgresPool
    let settings: ProductionSettings

    func listRestaurants(_ request: Production.ListRestaurantsRequest, context: ServerCallContext) async throws
        -> Production.ListRestaurantsResponse {
        let caller = try ProductionCaller(context, settings: settings)
        guard request.neighborhood.count <= 100 else { throw ProductionError.invalid("neighborhood is at most 100 characters") }
        if let near = request.near {
            guard (-90...90).contains(near.latitude), (-180...180).contains(near.longitude) else {
                throw ProductionError.invalid("near must be a latitude in [-90, 90] and a longitude in [-180, 180]")
            }
        }
        let restaurants = try await pool.withConnection { connection in
            try await StudioStore.restaurants(app: caller.app, neighborhood: request.neighborhood, near: request.near,
                                              withNotes: caller.isProducer, on: connection)
        }
        return Production.ListRestaurantsResponse(restaurants: restaurants)
    }

    func scheduleShoot(_ request: Production.ScheduleShootRequest, context: ServerCallContext) async throws -> Production.Shoot {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let episodeID = try RequestID.parse(request.episodeID, field: "episode_id")
        let start = try RequestTime.microseconds(request.startsAt, field: "starts_at")
        guard (15...720).contains(request.durationMinutes) else { throw ProductionError.invalid("duration_minutes must be 15-720") }
        return try await pool.withTransaction { connection in
            try await StudioStore.lockCalendar(app: caller.app, on: connection)
            guard let episode = try await EpisodeStore.find(episodeID, app: caller.app, lock: true, on: connection) else {
                throw ProductionError.episodeNotFound
            }
            guard episode.status.rawValue < Production.EpisodeStatus.filmed.rawValue else { throw ProductionError.episodeLocked }
            guard try await StudioStore.restaurantExists(request.restaurantID, app: caller.app, on: connection) else {
                throw ProductionError.restaurantNotFound
            }
            let cast = episode.castAccountIDs.compactMap(UUID.init(uuidString:))
            if let conflict = try await StudioStore.conflicts(app: caller.app, episode: episodeID, restaurant: request.restaurantID,
                                                              start: start, minutes: request.durationMinutes, cast: cast,
                                                              on: connection) {
                throw ProductionError.scheduleConflict(kind: conflict.kind, episodes: conflict.episodes)
            }
            return try await StudioStore.setShoot(episodeID, restaurant: request.restaurantID, start: start,
                                                  minutes: request.durationMinutes, on: connection)
        }
    }

    func getCalendar(_ request: Production.GetCalendarRequest, context: ServerCallContext) async throws -> Production.Calendar {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let from = try RequestTime.microseconds(request.from, field: "from")
        let to = try RequestTime.microseconds(request.to, field: "to")
        guard from < to else { throw ProductionError.invalid("from must be before to") }
        guard to - from <= 366 * 86_400 * 1_000_000 else { throw ProductionError.invalid("a calendar spans at most 366 days") }
        let shoots = try await pool.withConnection { connection in
            try await StudioStore.shoots(app: caller.app, from: from, to: to, on: connection)
        }
        return Production.Calendar(shoots: shoots, conflicts: StudioStore.conflicts(among: shoots))
    }

    func getChecklist(_ request: Production.GetChecklistRequest, context: ServerCallContext) async throws -> Production.Checklist {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let episodeID = try RequestID.parse(request.episodeID, field: "episode_id")
        return try await pool.withTransaction(isolation: .repeatableRead) { connection in
            guard try await EpisodeStore.find(episodeID, app: caller.app, on: connection) != nil else {
                throw ProductionError.episodeNotFound
            }
            return try await StudioStore.checklist(episodeID, on: connection)
        }
    }

    func updateChecklist(_ request: Production.UpdateChecklistRequest, context: ServerCallContext) async throws
        -> Production.Checklist {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let episodeID = try RequestID.parse(request.episodeID, field: "episode_id")
        let fields = Set(request.updateMask)
        guard !fields.isEmpty, fields.isSubset(of: ["restaurant_confirmed", "equipment_packed"]) else {
            throw ProductionError.invalid("update_mask names restaurant_confirmed and/or equipment_packed")
        }
        return try await pool.withTransaction { connection in
            guard let episode = try await EpisodeStore.find(episodeID, app: caller.app, lock: true, on: connection) else {
                throw ProductionError.episodeNotFound
            }
            if fields.contains("restaurant_confirmed"), request.restaurantConfirmed {
                let shoots = try await connection.query("SELECT restaurant_id FROM production.episodes WHERE id = $1", [.uuid(episodeID)])
                guard try shoots.first?.decode(0, as: String?.self) != nil else {
                    throw ProductionError.shootNotScheduled
                }
            }
            try await StudioStore.setFlags(episodeID, restaurantConfirmed: fields.contains("restaurant_confirmed") ? request.restaurantConfirmed : nil,
                                           equipmentPacked: fields.contains("equipment_packed") ? request.equipmentPacked : nil,
                                           on: connection)
            return try await StudioStore.checklist(UUID(uuidString: episode.id) ?? episodeID, on: connection)
        }
    }

    func addWardrobeItem(_ request: Production.AddWardrobeItemRequest, context: ServerCallContext) async throws
        -> Production.WardrobeItem {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        guard (1...200).contains(request.name.trimmingCharacters(in: .whitespaces).count) else {
            throw ProductionError.invalid("name must be 1-200 characters")
        }
        guard (1...50).contains(request.category.count) else { throw ProductionError.invalid("category must be 1-50 characters") }
        guard request.sponsor.count <= 200 else { throw ProductionError.invalid("sponsor is at most 200 characters") }
        guard let cost = request.cost else { throw ProductionError.invalidMoney("cost is required (zero for a loan)") }
        guard MoneyRules.isCurrency(cost.currency) else { throw ProductionError.invalidMoney("currency must be an ISO 4217 code") }
        guard (0...1_000_000_000_000).contains(cost.amountMinor) else { throw ProductionError.invalidMoney("cost must not be negative") }
        return try await pool.withTransaction { connection in
            try await StudioStore.addItem(request, cost: cost, app: caller.app, on: connection)
        }
    }

    func listWardrobe(_ request: Production.ListWardrobeRequest, context: ServerCallContext) async throws
        -> Production.ListWardrobeResponse {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        return Production.ListWardrobeResponse(items: try await pool.withConnection { try await StudioStore.items(app: caller.app, on: $0) })
    }

    func logOutfit(_ request: Production.LogOutfitRequest, context: ServerCallContext) async throws -> Production.Outfit {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let episodeID = try RequestID.parse(request.episodeID, field: "episode_id")
        let itemID = try RequestID.parse(request.itemID, field: "item_id")
        let wearer = try RequestID.parse(request.wornBy, field: "worn_by")
        guard request.notes.count <= 500 else { throw ProductionError.invalid("notes are at most 500 characters") }
        return try await pool.withTransaction { connection in
            guard let episode = try await EpisodeStore.find(episodeID, app: caller.app, on: connection) else {
                throw ProductionError.episodeNotFound
            }
            guard episode.castAccountIDs.contains(wearer.lowercased) else { throw ProductionError.notCast }
            guard try await StudioStore.itemExists(itemID, app: caller.app, on: connection) else {
                throw ProductionError.wardrobeItemNotFound
            }
            return try await StudioStore.logOutfit(episode: episodeID, item: itemID, wornBy: wearer, notes: request.notes,
                                                   on: connection)
        }
    }

    func listOutfits(_ request: Production.ListOutfitsRequest, context: ServerCallContext) async throws
        -> Production.ListOutfitsResponse {
        let caller = try ProductionCaller(context, settings: settings)
        try caller.requireProducer()
        let episodeID = try RequestID.parse(request.episodeID, field: "episode_id")
        return try await pool.withConnection { connection in
            guard try await EpisodeStore.find(episodeID, app: caller.app, on: connection) != nil else {
                throw ProductionError.episodeNotFound
            }
            return try await StudioStore.outfits(episode: episodeID, on: connection)
        }
    }
}
