import Contracts
import Foundation
import Postgres
import Runtime

/// The feed's reads of the projection: the viewer, their window of candidates with what each
/// one's score is made of (`FeedCandidate`, ranked in Swift by `FeedRanking`), and the cards of
/// a page.
enum FeedStore {
    /// The viewer as a feed needs them: their tags and point (latitude, longitude), and the
    /// latest listing of the app (Unix µs), which tells whether a window read now holds everyone
    /// listed by a moment (`FeedWindowCache`).
    struct Viewer: Sendable {
        var tags: [String]
        var location: (Double, Double)?
        var latestListing: Int64?

        init(tags: [String], location: (Double, Double)?, latestListing: Int64?) {
            self.tags = tags
            self.location = location
            self.latestListing = latestListing
        }

        /// From the rows of `viewer(_:app:)`: always one (its `custom` row).
        init(_ rows: PostgresRows) throws {
            let row = rows[0]
            let latitude = try row.decode(1, as: Double?.self)
            let longitude = try row.decode(2, as: Double?.self)
            tags = try row.decode(0)
            location = latitude.flatMap { latitude in longitude.map { (latitude, $0) } }
            latestListing = try row.decode(4)
        }
    }

    /// The viewer's own tags and location, from the projection. A viewer without a location but
    /// with a neighborhood is placed at its centroid: the middle of the app's members who gave
    /// both (FirstDate's fallback), so the radius and distances still apply. In the same
    /// statement, the rest of the transaction gets plans made for its parameters (see `window`).
    static func viewer(_ account: UUID, app: String) -> PostgresStatement {
        PostgresStatement("""
            WITH custom AS MATERIALIZED (SELECT set_config('plan_cache_mode', 'force_custom_plan', true) AS mode),
                 me AS (SELECT tags, location, neighborhood FROM discovery.profiles WHERE account_id = $1),
                 point AS (
                     SELECT coalesce(me.location::geometry,
                                     (SELECT ST_Centroid(ST_Collect(p.location::geometry)) FROM discovery.profiles p
                                      WHERE me.location IS NULL AND me.neighborhood <> '' AND p.app = $2
                                        AND p.neighborhood = me.neighborhood AND p.location IS NOT NULL)) AS g
                     FROM me)
            SELECT coalesce(me.tags, '{}'), ST_Y(point.g), ST_X(point.g), custom.mode,
                   (SELECT \(UnixMicroseconds.sql("max(p.listed_at)")) FROM discovery.profiles p WHERE p.app = $2)
            FROM custom LEFT JOIN (me CROSS JOIN point) ON true
            """, [.uuid(account), .text(app)])
    }

    /// How many people a feed ranks: the nearest this many (the GiST index hands them over in
    /// distance order), or for a viewer without a location the most recently active. Ranking a
    /// bounded window keeps a page's cost flat however many people an app has.
    static let window = 400

    /// How many people after the window its read also takes: a viewer's own swipes of up to this
    /// many of its people leave the kept window exact, with the tail's first moving up
    /// (`FeedWindowCache.Window.without(_:stamp:)`), instead of a read of the window again.
    static let windowTail = 100

    /// The viewer's window as of `asOf`: everyone they may be shown (listed by then, active,
    /// admitted, not swiped, blocked either way or reported, not incognito unless they liked
    /// the viewer, within the filters), nearest first or most recently active and in that order,
    /// with what their scores are made of: the nearest `window` and the `windowTail` after them.
    /// Run it in the transaction of `viewer`: the plan is made for this call's parameters (a
    /// cached generic plan cannot see the viewer's point and scans the whole app instead of the
    /// nearest).
    ///
    /// The people the viewer has acted on, and those who liked them, are read once as sets
    /// (hashed), not probed per candidate; mutual connections are counted only when the viewer
    /// has any.
    static func window(of account: UUID, app: String, asOf: Int64, filters: FeedFilters, viewer: Viewer,
                       on connection: Connection) async throws -> [FeedCandidate] {
        // Chosen here, not from input: the window's order, nearest first when the viewer has a
        // point (index-ordered KNN), else most recently active.
        let windowOrder = viewer.location == nil
            ? "coalesce(p.last_active_at, p.listed_at) DESC, p.account_id"
            : "p.location <-> ST_SetSRID(ST_MakePoint($10::float8, $9::float8), 4326)::geography"
        // The same order on the window's rows (the distances they carry are of snapped points).
        let rowOrder = viewer.location == nil ? "c.active_at DESC, c.account_id" : "c.nearness"
        let rows = try await connection.query("""
            WITH v AS MATERIALIZED (
                SELECT CASE WHEN $9::float8 IS NULL THEN NULL
                            ELSE ST_SetSRID(ST_MakePoint($10::float8, $9::float8), 4326)::geography END AS location,
                       EXISTS (SELECT 1 FROM discovery.connections WHERE account_id = $1) AS connected
            ), likers AS MATERIALIZED (
                SELECT swiper_id, action, created_at FROM discovery.swipes WHERE target_id = $1 AND action >= 2
            ), candidates AS (
                SELECT p.account_id, p.tags, p.tier, \(MemberLocation.sql("p.location")) AS location,
                       coalesce(p.last_active_at, p.listed_at) AS active_at, p.boosted_until,
                       \(viewer.location == nil ? "NULL::float8" : windowOrder) AS nearness
                FROM discovery.profiles p
                WHERE p.app = $2 AND p.active AND p.admitted AND p.account_id <> $1
                  AND p.listed_at <= 'epoch'::timestamptz + $3::int8 * interval '1 microsecond'
                  AND p.account_id NOT IN (SELECT target_id FROM discovery.swipes WHERE swiper_id = $1
                                           UNION ALL SELECT blocked_id FROM discovery.blocks WHERE blocker_id = $1
                                           UNION ALL SELECT blocker_id FROM discovery.blocks WHERE blocked_id = $1
                                           UNION ALL SELECT reported_id FROM discovery.reports WHERE reporter_id = $1)
                  AND (NOT p.incognito OR p.account_id IN (SELECT swiper_id FROM likers))
                  AND ($9::float8 IS NULL OR p.location IS NOT NULL)
                  AND ($4::int4 IS NULL OR p.birth_date <= (now() AT TIME ZONE 'UTC')::date - make_interval(years => $4::int4))
                  AND ($5::int4 IS NULL OR p.birth_date > (now() AT TIME ZONE 'UTC')::date - make_interval(years => $5::int4 + 1))
                  AND ($6::int4[] IS NULL OR p.gender = ANY($6::int4[]))
                  AND ($7::text[] IS NULL OR p.cuisines && $7::text[])
                ORDER BY \(windowOrder)
                LIMIT \(window + windowTail)
            )
            SELECT c.account_id,
                   CASE WHEN v.location IS NULL OR c.location IS NULL THEN 0
                        ELSE ST_Distance(c.location, v.location, false) END,
                   c.tier, \(UnixMicroseconds.sql("c.active_at")), \(UnixMicroseconds.sql("c.boosted_until")),
                   l.action, \(UnixMicroseconds.sql("l.created_at")),
                   CASE WHEN v.connected THEN
                       (SELECT count(*) FROM discovery.connections mine JOIN discovery.connections theirs
                          ON theirs.other_id = mine.other_id AND theirs.account_id = c.account_id
                        WHERE mine.account_id = $1)::int4
                   ELSE 0 END,
                   (SELECT count(*) FROM unnest(c.tags) t WHERE t = ANY($8::text[]))::int4
            FROM candidates c CROSS JOIN v
            LEFT JOIN likers l ON l.swiper_id = c.account_id
            ORDER BY \(rowOrder)
            """,
            [.uuid(account), .text(app), .int64(asOf), .int32(filters.minAge), .int32(filters.maxAge),
             .int32Array(filters.genders), .textArray(filters.cuisines), .textArray(viewer.tags),
             .double(viewer.location?.0), .double(viewer.location?.1)])
        return try rows.map { row in
            let likeAction = try row.decode(5, as: Int16?.self)
            let likedAt = try row.decode(6, as: Int64?.self)
            return FeedCandidate(id: try row.decode(0), distance: try row.decode(1), tier: try row.decode(2),
                                 activeAt: try row.decode(3), boostedUntil: try row.decode(4),
                                 like: likeAction.flatMap { action in likedAt.map { (action, $0) } },
                                 mutualConnections: try row.decode(7), sharedTagCount: try row.decode(8))
        }
    }

    /// The cards of the people `ids` as far as the window does not carry them (name, age as of
    /// `asOf`, photos…): `baseCards` reads its rows, `cards(_:asOf:base:)` completes them.
    static func cards(_ ids: [UUID], asOf: Int64, viewerTags: [String]) -> PostgresStatement {
        PostgresStatement("""
            SELECT p.account_id, p.public_name,
                   coalesce(date_part('year', age((('epoch'::timestamptz + $2::int8 * interval '1 microsecond')
                                                   AT TIME ZONE 'UTC')::date, p.birth_date))::int4, 0),
                   p.gender, p.bio, p.title, p.tags, ARRAY(SELECT t FROM unnest(p.tags) t WHERE t = ANY($3::text[]) ORDER BY t),
                   p.neighborhood, p.photo_ids, p.verified
            FROM discovery.profiles p WHERE p.account_id = ANY($1::uuid[])
            """, [.uuidArray(ids), .int64(asOf), .textArray(viewerTags)])
    }

    /// The rows of `cards(_:asOf:viewerTags:)` by id.
    static func baseCards(from rows: PostgresRows) throws -> [UUID: Discovery.Card] {
        var byID: [UUID: Discovery.Card] = [:]
        for row in rows {
            var card = Discovery.Card()
            let id = try row.decode(0, as: UUID.self)
            card.accountID = id.uuidString.lowercased()
            card.publicName = try row.decode(1)
            card.age = try row.decode(2)
            card.gender = Profiles.Gender(rawValue: try row.decode(3))
            card.bio = try row.decode(4)
            card.title = try row.decode(5)
            card.tags = try row.decode(6)
            card.sharedTags = try row.decode(7)
            card.neighborhood = try row.decode(8)
            card.photoIDs = try row.decode(9)
            card.verified = try row.decode(10)
            byID[id] = card
        }
        return byID
    }

    /// The cards of a ranked page, in its order: `base` completed with what the candidates carry
    /// as of `asOf`. One without a base card (the person was deleted since the window was read)
    /// is left out.
    static func cards(_ page: [FeedRanking.Ranked], asOf: Int64, base: [UUID: Discovery.Card]) -> [Discovery.Card] {
        page.compactMap { ranked in
            guard var card = base[ranked.candidate.id] else { return nil }
            card.distanceMeters = MemberDistance.shown(ranked.candidate.distance)
            card.superLikedYou = ranked.candidate.like(asOf: asOf) == 3
            card.mutualConnections = ranked.candidate.mutualConnections
            return card
        }
    }
}
