import Contracts
import Foundation
import Postgres
import Runtime

/// The ranked feed in one query over the projection: a window of candidates (`window`), then
/// their scores. Scores are integers, so a page token's (score, id) is an exact position:
///   400 per mutual connection; 100 per shared tag; 250 when they super-liked the viewer, 150 when they liked;
///   200 for a tier ranked first in discovery; 20 per day of activity in the last 14;
///   minus 2 per kilometre; 1000 while the person's boost runs.
/// Every part is computed as of the feed's moment (`asOf`): likes and profiles that arrive
/// later count only from a new first page.
enum FeedStore {
    struct Query: Sendable {
        var viewer: UUID
        var app: String
        var asOf: Int64
        var filters: FeedFilters
        var priorityTiers: [String]
        var after: FeedToken?
        var limit: Int
    }

    struct Row: Sendable {
        var card: Discovery.Card
        var score: Int64
    }

    /// The viewer's own tags and location (latitude, longitude), from the projection. A viewer
    /// without a location but with a neighborhood is placed at its centroid: the middle of the
    /// app's members who gave both (FirstDate's fallback), so the radius and distances still apply.
    /// In the same round trip, the rest of the transaction gets plans made for its parameters
    /// (see `page`).
    static func viewer(_ account: UUID, app: String, on connection: Connection) async throws
        -> (tags: [String], location: (Double, Double)?) {
        let rows = try await connection.query("""
            WITH custom AS MATERIALIZED (SELECT set_config('plan_cache_mode', 'force_custom_plan', true) AS mode),
                 me AS (SELECT tags, location, neighborhood FROM discovery.profiles WHERE account_id = $1),
                 point AS (
                     SELECT coalesce(me.location::geometry,
                                     (SELECT ST_Centroid(ST_Collect(p.location::geometry)) FROM discovery.profiles p
                                      WHERE me.location IS NULL AND me.neighborhood <> '' AND p.app = $2
                                        AND p.neighborhood = me.neighborhood AND p.location IS NOT NULL)) AS g
                     FROM me)
            SELECT coalesce(me.tags, '{}'), ST_Y(point.g), ST_X(point.g), custom.mode
            FROM custom LEFT JOIN (me CROSS JOIN point) ON true
            """, [.uuid(account), .text(app)])
        guard let row = rows.first else { return ([], nil) }
        let latitude = try row.decode(1, as: Double?.self)
        let longitude = try row.decode(2, as: Double?.self)
        return (try row.decode(0), latitude.flatMap { latitude in longitude.map { (latitude, $0) } })
    }

    /// How many people a feed ranks: the nearest this many (the GiST index hands them over in
    /// distance order), or for a viewer without a location the most recently active. Ranking a
    /// bounded window keeps a page's cost flat however many people an app has.
    static let window = 400

    /// One page; run it in a transaction: the plan is made for this call's parameters (a cached
    /// generic plan cannot see the viewer's point and scans the whole app instead of the nearest),
    /// as `viewer` sets for the transaction.
    static func page(_ query: Query, on connection: Connection) async throws -> [Row] {
        let viewer = try await viewer(query.viewer, app: query.app, on: connection)
        // Chosen here, not from input: the window's order, nearest first when the viewer has a
        // point (index-ordered KNN), else most recently active.
        let windowOrder = viewer.location == nil
            ? "coalesce(p.last_active_at, p.listed_at) DESC, p.account_id"
            : "p.location <-> ST_SetSRID(ST_MakePoint($15::float8, $14::float8), 4326)::geography"
        let rows = try await connection.query("""
            WITH v AS MATERIALIZED (
                SELECT 'epoch'::timestamptz + $3::int8 * interval '1 microsecond' AS as_of,
                       CASE WHEN $14::float8 IS NULL THEN NULL
                            ELSE ST_SetSRID(ST_MakePoint($15::float8, $14::float8), 4326)::geography END AS location
            ), candidates AS (
                SELECT p.account_id, p.public_name, p.birth_date, p.gender, p.bio, p.title, p.tags, p.neighborhood,
                       p.photo_ids, p.verified, p.tier, \(MemberLocation.sql("p.location")) AS location, p.last_active_at,
                       p.listed_at, p.boosted_until
                FROM discovery.profiles p
                WHERE p.app = $2 AND p.active AND p.admitted AND p.account_id <> $1
                  AND p.listed_at <= 'epoch'::timestamptz + $3::int8 * interval '1 microsecond'
                  AND NOT EXISTS (SELECT 1 FROM discovery.swipes s WHERE s.swiper_id = $1 AND s.target_id = p.account_id)
                  AND NOT EXISTS (SELECT 1 FROM discovery.blocks b WHERE b.blocker_id = $1 AND b.blocked_id = p.account_id)
                  AND NOT EXISTS (SELECT 1 FROM discovery.blocks b WHERE b.blocker_id = p.account_id AND b.blocked_id = $1)
                  AND NOT EXISTS (SELECT 1 FROM discovery.reports r WHERE r.reporter_id = $1 AND r.reported_id = p.account_id)
                  AND (NOT p.incognito OR EXISTS (SELECT 1 FROM discovery.swipes k
                                                  WHERE k.swiper_id = p.account_id AND k.target_id = $1 AND k.action >= 2))
                  AND ($14::float8 IS NULL OR p.location IS NOT NULL)
                  AND ($5::int4 IS NULL OR p.birth_date <= (now() AT TIME ZONE 'UTC')::date - make_interval(years => $5::int4))
                  AND ($6::int4 IS NULL OR p.birth_date > (now() AT TIME ZONE 'UTC')::date - make_interval(years => $6::int4 + 1))
                  AND ($7::int4[] IS NULL OR p.gender = ANY($7::int4[]))
                  AND ($8::text[] IS NULL OR p.cuisines && $8::text[])
                ORDER BY \(windowOrder)
                LIMIT \(window)
            ), scored AS MATERIALIZED (
                SELECT c.*, l.action AS liked, v.as_of,
                       CASE WHEN v.location IS NULL OR c.location IS NULL THEN 0
                            ELSE ST_Distance(c.location, v.location, false) END AS distance,
                       (SELECT count(*) FROM discovery.connections mine JOIN discovery.connections theirs
                          ON theirs.other_id = mine.other_id AND theirs.account_id = c.account_id
                        WHERE mine.account_id = $1)::int4 AS mutual
                FROM candidates c CROSS JOIN v
                LEFT JOIN discovery.swipes l
                  ON l.swiper_id = c.account_id AND l.target_id = $1 AND l.action >= 2 AND l.created_at <= v.as_of
            ), ranked AS (
                SELECT r.*,
                       CASE WHEN r.boosted_until > r.as_of THEN 1000 ELSE 0 END
                       + 400 * r.mutual
                       + CASE WHEN r.tier = ANY($9::text[]) THEN 200 ELSE 0 END
                       + CASE r.liked WHEN 3 THEN 250 WHEN 2 THEN 150 ELSE 0 END
                       + 20 * greatest(0, 14 - floor(greatest(0, extract(epoch FROM
                             (r.as_of - coalesce(r.last_active_at, r.listed_at)))) / 86400))::int8
                       + 100 * (SELECT count(*) FROM unnest(r.tags) t WHERE t = ANY($13::text[]))
                       - 2 * floor(r.distance / 1000)::int8 AS score
                FROM scored r
            )
            SELECT account_id, public_name, coalesce(date_part('year', age((as_of AT TIME ZONE 'UTC')::date, birth_date))::int4, 0),
                   gender, bio, title, tags, ARRAY(SELECT t FROM unnest(tags) t WHERE t = ANY($13::text[]) ORDER BY t),
                   neighborhood, distance, photo_ids, verified, coalesce(liked = 3, false), score, mutual
            FROM ranked
            -- The radius applies to the window, not inside it: a filter there would turn the
            -- index-ordered nearest-first scan into a scan and sort of everyone in range. It
            -- compares the distance already computed (the same sphere distance ST_DWithin
            -- measures); `scored` is materialised so that distance and the mutual count are
            -- computed once per candidate, not again wherever the score and the row refer to them.
            WHERE ($14::float8 IS NULL OR distance <= $4::float8)
              AND ($10::int8 IS NULL OR score < $10::int8 OR (score = $10::int8 AND account_id > $11::uuid))
            ORDER BY score DESC, account_id
            LIMIT $12
            """,
            [.uuid(query.viewer), .text(query.app), .int64(query.asOf), .double(query.filters.radiusMeters),
             .int32(query.filters.minAge), .int32(query.filters.maxAge), .int32Array(query.filters.genders),
             .textArray(query.filters.cuisines), .textArray(query.priorityTiers), .int64(query.after?.score),
             .uuid(query.after?.id), .int(query.limit), .textArray(viewer.tags), .double(viewer.location?.0),
             .double(viewer.location?.1)])
        return try rows.map { row in
            var card = Discovery.Card()
            card.accountID = try row.decode(0, as: UUID.self).uuidString.lowercased()
            card.publicName = try row.decode(1)
            card.age = try row.decode(2)
            card.gender = Profiles.Gender(rawValue: try row.decode(3))
            card.bio = try row.decode(4)
            card.title = try row.decode(5)
            card.tags = try row.decode(6)
            card.sharedTags = try row.decode(7)
            card.neighborhood = try row.decode(8)
            card.distanceMeters = MemberDistance.shown(try row.decode(9))
            card.photoIDs = try row.decode(10)
            card.verified = try row.decode(11)
            card.superLikedYou = try row.decode(12)
            card.mutualConnections = try row.decode(14)
            return Row(card: card, score: try row.decode(13))
        }
    }
}
