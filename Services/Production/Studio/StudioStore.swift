import Contracts
import Foundation
import Postgres
import Runtime

/// Restaurants, shoots and their conflicts, the pre-shoot checklist, wardrobe and outfits.
enum StudioStore {
    // MARK: Restaurants

    static func restaurants(app: String, neighborhood: String, near: Production.GeoPoint?, withNotes: Bool,
                            on connection: Connection) async throws -> [Production.Restaurant] {
        let distance = near == nil ? "0::float8"
            : "ST_Distance(location, ST_SetSRID(ST_MakePoint($4::float8, $3::float8), 4326)::geography)"
        let rows = try await connection.query("""
            SELECT id, name, cuisine, vibe, neighborhood, ST_Y(location::geometry), ST_X(location::geometry), photo_url,
                   filming_notes, \(distance)
            FROM production.restaurants
            WHERE app = $1 AND active AND ($2 = '' OR lower(neighborhood) = lower($2))
            ORDER BY \(near == nil ? "name" : "10, name")
            """, [.text(app), .text(neighborhood), .double(near?.latitude), .double(near?.longitude)])
        return try rows.map { row in
            var restaurant = Production.Restaurant()
            restaurant.id = try row.decode(0)
            restaurant.name = try row.decode(1)
            restaurant.cuisine = try row.decode(2)
            restaurant.vibe = try row.decode(3)
            restaurant.neighborhood = try row.decode(4)
            if let latitude = try row.decode(5, as: Double?.self), let longitude = try row.decode(6, as: Double?.self) {
                restaurant.location = Production.GeoPoint(latitude: latitude, longitude: longitude)
            }
            restaurant.photoURL = try row.decode(7)
            if withNotes { restaurant.filmingNotes = try row.decode(8) }
            restaurant.distanceMeters = try row.decode(9, as: Double?.self) ?? 0
            return restaurant
        }
    }

    static func restaurantExists(_ id: String, app: String, on connection: Connection) async throws -> Bool {
        try await !connection.query("SELECT 1 FROM production.restaurants WHERE id = $1 AND app = $2 AND active",
                                    [.text(id), .text(app)]).isEmpty
    }

    // MARK: Shoots

    static let shootColumns = """
        e.id, e.number, e.title, e.restaurant_id, \(UnixMicroseconds.sql("e.shoot_starts_at")), e.shoot_minutes,
        ARRAY(SELECT c.account_id FROM production.cast_members c WHERE c.episode_id = e.id ORDER BY c.account_id)
        """

    /// Serialises scheduling within an app, so two overlapping shoots are never both accepted.
    static func lockCalendar(app: String, on connection: Connection) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtext('production.calendar.' || $1))", [.text(app)])
    }

    /// The first shoot of another episode that overlaps [start, start + minutes) at `restaurant`
    /// or with anyone in `cast`: its kind and episode ids.
    static func conflicts(app: String, episode: UUID, restaurant: String, start: Int64, minutes: Int32, cast: [UUID],
                          on connection: Connection) async throws -> (kind: String, episodes: [String])? {
        let rows = try await connection.query("""
            SELECT e.id, e.restaurant_id = $3 FROM production.episodes e
            WHERE e.app = $1 AND e.id <> $2 AND e.shoot_starts_at IS NOT NULL
              AND tstzrange(e.shoot_starts_at, e.shoot_starts_at + make_interval(mins => e.shoot_minutes))
                  && tstzrange(to_timestamp($4::float8 / 1000000), to_timestamp($4::float8 / 1000000) + make_interval(mins => $5))
              AND (e.restaurant_id = $3
                   OR EXISTS (SELECT 1 FROM production.cast_members c WHERE c.episode_id = e.id AND c.account_id = ANY ($6)))
            ORDER BY e.shoot_starts_at
            """, [.text(app), .uuid(episode), .text(restaurant), .int64(start), .int32(minutes), .uuidArray(cast)])
        guard !rows.isEmpty else { return nil }
        let sameRestaurant = try rows.contains { try $0.decode(1, as: Bool.self) }
        return (sameRestaurant ? "restaurant" : "talent", try rows.map { try $0.decode(0, as: UUID.self).lowercased })
    }

    static func setShoot(_ episode: UUID, restaurant: String, start: Int64, minutes: Int32, on connection: Connection) async throws
        -> Production.Shoot {
        let rows = try await connection.query("""
            UPDATE production.episodes e SET restaurant_id = $2, shoot_starts_at = to_timestamp($3::float8 / 1000000),
                shoot_minutes = $4,
                restaurant_confirmed = restaurant_confirmed AND restaurant_id IS NOT DISTINCT FROM $2
            WHERE e.id = $1 RETURNING \(shootColumns)
            """, [.uuid(episode), .text(restaurant), .int64(start), .int32(minutes)])
        return try shoot(rows[0])
    }

    static func shoots(app: String, from: Int64, to: Int64, on connection: Connection) async throws -> [Production.Shoot] {
        try await connection.query("""
            SELECT \(shootColumns) FROM production.episodes e
            WHERE e.app = $1 AND e.shoot_starts_at >= to_timestamp($2::float8 / 1000000)
              AND e.shoot_starts_at < to_timestamp($3::float8 / 1000000)
            ORDER BY e.shoot_starts_at, e.id
            """, [.text(app), .int64(from), .int64(to)]).map(shoot)
    }

    /// Overlapping pairs among `shoots`: at one restaurant, or with someone cast in both.
    static func conflicts(among shoots: [Production.Shoot]) -> [Production.ShootConflict] {
        var conflicts: [Production.ShootConflict] = []
        for (index, a) in shoots.enumerated() {
            guard let aStart = a.startsAt?.microseconds else { continue }
            let aEnd = aStart + Int64(a.durationMinutes) * 60_000_000
            for b in shoots[(index + 1)...] {
                guard let bStart = b.startsAt?.microseconds, bStart < aEnd else { continue }
                let pair = [a.episodeID, b.episodeID]
                if a.restaurantID == b.restaurantID {
                    conflicts.append(Production.ShootConflict(kind: "restaurant", episodeIDs: pair, subject: a.restaurantID))
                }
                for person in Set(a.castAccountIDs).intersection(b.castAccountIDs).sorted() {
                    conflicts.append(Production.ShootConflict(kind: "talent", episodeIDs: pair, subject: person))
                }
            }
        }
        return conflicts
    }

    static func shoot(_ row: PostgresRow) throws -> Production.Shoot {
        var shoot = Production.Shoot()
        shoot.episodeID = try row.decode(0, as: UUID.self).lowercased
        shoot.episodeNumber = try row.decode(1)
        shoot.title = try row.decode(2)
        shoot.restaurantID = try row.decode(3, as: String?.self) ?? ""
        if let start = try row.decode(4, as: Int64?.self) { shoot.startsAt = Timestamp(microseconds: start) }
        shoot.durationMinutes = try row.decode(5, as: Int32?.self) ?? 0
        shoot.castAccountIDs = try row.decode(6, as: [UUID].self).map(\.lowercased)
        return shoot
    }

    // MARK: Checklist

    static func checklist(_ episode: UUID, on connection: Connection) async throws -> Production.Checklist {
        let rows = try await connection.query("""
            WITH cast_members AS (SELECT account_id FROM production.cast_members WHERE episode_id = $1),
            latest AS (
                SELECT DISTINCT ON (participant_id) participant_id, record_type FROM production.consent_records
                WHERE episode_id = $1 ORDER BY participant_id, seq DESC
            )
            SELECT e.restaurant_id IS NOT NULL AND e.restaurant_confirmed,
                   EXISTS (SELECT 1 FROM cast_members),
                   EXISTS (SELECT 1 FROM latest WHERE record_type = 1)
                       AND NOT EXISTS (SELECT 1 FROM cast_members c WHERE NOT EXISTS (
                           SELECT 1 FROM latest l WHERE l.participant_id = c.account_id AND l.record_type = 1)),
                   EXISTS (SELECT 1 FROM production.outfits o WHERE o.episode_id = $1),
                   e.equipment_packed
            FROM production.episodes e WHERE e.id = $1
            """, [.uuid(episode)])
        var checklist = Production.Checklist()
        checklist.episodeID = episode.lowercased
        checklist.restaurantConfirmed = try rows[0].decode(0)
        checklist.talentConfirmed = try rows[0].decode(1)
        checklist.consentSigned = try rows[0].decode(2)
        checklist.outfitLogged = try rows[0].decode(3)
        checklist.equipmentPacked = try rows[0].decode(4)
        checklist.ready = checklist.restaurantConfirmed && checklist.talentConfirmed && checklist.consentSigned
            && checklist.outfitLogged && checklist.equipmentPacked
        return checklist
    }

    static func setFlags(_ episode: UUID, restaurantConfirmed: Bool?, equipmentPacked: Bool?, on connection: Connection) async throws {
        try await connection.query("""
            UPDATE production.episodes SET restaurant_confirmed = coalesce($2, restaurant_confirmed),
                equipment_packed = coalesce($3, equipment_packed)
            WHERE id = $1
            """, [.uuid(episode), .bool(restaurantConfirmed), .bool(equipmentPacked)])
    }

    // MARK: Wardrobe

    static let itemColumns = "id, name, category, cost_minor, currency, sponsor, \(UnixMicroseconds.sql("created_at"))"

    static func addItem(_ request: Production.AddWardrobeItemRequest, cost: Production.Money, app: String,
                        on connection: Connection) async throws -> Production.WardrobeItem {
        let rows = try await connection.query("""
            INSERT INTO production.wardrobe_items (id, app, name, category, cost_minor, currency, sponsor)
            VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING \(itemColumns)
            """, [.uuid(UUID.random()), .text(app), .text(request.name), .text(request.category), .int64(cost.amountMinor),
                  .text(cost.currency), .text(request.sponsor)])
        return try item(rows[0])
    }

    static func items(app: String, on connection: Connection) async throws -> [Production.WardrobeItem] {
        try await connection.query("SELECT \(itemColumns) FROM production.wardrobe_items WHERE app = $1 ORDER BY created_at, id",
                                   [.text(app)]).map(item)
    }

    static func itemExists(_ id: UUID, app: String, on connection: Connection) async throws -> Bool {
        try await !connection.query("SELECT 1 FROM production.wardrobe_items WHERE id = $1 AND app = $2",
                                    [.uuid(id), .text(app)]).isEmpty
    }

    static let outfitColumns = "id, episode_id, item_id, worn_by, notes, \(UnixMicroseconds.sql("created_at"))"

    /// Logs the outfit, or returns the one already logged for the same item, wearer and episode.
    static func logOutfit(episode: UUID, item: UUID, wornBy: UUID, notes: String, on connection: Connection) async throws
        -> Production.Outfit {
        let inserted = try await connection.query("""
            INSERT INTO production.outfits (id, episode_id, item_id, worn_by, notes) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (episode_id, item_id, worn_by) DO NOTHING RETURNING \(outfitColumns)
            """, [.uuid(UUID.random()), .uuid(episode), .uuid(item), .uuid(wornBy), .text(notes)])
        if let row = inserted.first { return try outfit(row) }
        return try outfit(try await connection.query("""
            SELECT \(outfitColumns) FROM production.outfits WHERE episode_id = $1 AND item_id = $2 AND worn_by = $3
            """, [.uuid(episode), .uuid(item), .uuid(wornBy)])[0])
    }

    static func outfits(episode: UUID, on connection: Connection) async throws -> Production.ListOutfitsResponse {
        var response = Production.ListOutfitsResponse()
        response.outfits = try await connection.query("""
            SELECT \(outfitColumns) FROM production.outfits WHERE episode_id = $1 ORDER BY created_at, id
            """, [.uuid(episode)]).map(outfit)
        response.totalCost = try await connection.query("""
            SELECT w.currency, sum(w.cost_minor)::int8 FROM production.outfits o JOIN production.wardrobe_items w ON w.id = o.item_id
            WHERE o.episode_id = $1 GROUP BY w.currency ORDER BY w.currency
            """, [.uuid(episode)]).map { Production.Money(amountMinor: try $0.decode(1), currency: try $0.decode(0)) }
        return response
    }

    static func item(_ row: PostgresRow) throws -> Production.WardrobeItem {
        Production.WardrobeItem(id: try row.decode(0, as: UUID.self).lowercased, name: try row.decode(1), category: try row.decode(2),
                                cost: Production.Money(amountMinor: try row.decode(3), currency: try row.decode(4)),
                                sponsor: try row.decode(5), createdAt: Timestamp(microseconds: try row.decode(6)))
    }

    static func outfit(_ row: PostgresRow) throws -> Production.Outfit {
        Production.Outfit(id: try row.decode(0, as: UUID.self).lowercased, episodeID: try row.decode(1, as: UUID.self).lowercased,
                          itemID: try row.decode(2, as: UUID.self).lowercased, wornBy: try row.decode(3, as: UUID.self).lowercased,
                          notes: try row.decode(4), createdAt: Timestamp(microseconds: try row.decode(5)))
    }
}
