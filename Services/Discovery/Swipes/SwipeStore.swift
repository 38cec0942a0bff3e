import Contracts
import Foundation
import Postgres

/// Rows of `discovery.swipes` (one per ordered pair) and the daily allowance counters of
/// `discovery.daily_usage`, counted per UTC day.
enum SwipeStore {
    struct Existing: Sendable {
        var action: Discovery.SwipeAction
        var createdAt: Int64
    }

    /// Serialises swipes between the same two people, whoever swipes and on whichever
    /// instance: the later of two crossing likes then sees the earlier and makes the match.
    static func lockPair(_ a: UUID, _ b: UUID, on connection: Connection) async throws {
        _ = try await connection.query("""
            SELECT pg_advisory_xact_lock(hashtextextended(LEAST($1::uuid, $2::uuid)::text || GREATEST($1::uuid, $2::uuid)::text, 7102))
            """, [.uuid(a), .uuid(b)])
    }

    static func find(by swiper: UUID, on target: UUID, on connection: Connection) async throws -> Existing? {
        let rows = try await connection.query("""
            SELECT action, \(MatchStore.micros("created_at")) FROM discovery.swipes WHERE swiper_id = $1 AND target_id = $2
            """, [.uuid(swiper), .uuid(target)])
        guard let row = rows.first else { return nil }
        return Existing(action: Discovery.SwipeAction(rawValue: Int32(try row.decode(0, as: Int16.self))),
                        createdAt: try row.decode(1))
    }

    static func insert(by swiper: UUID, on target: UUID, app: String, action: Discovery.SwipeAction, quiz: Bool,
                       on connection: Connection) async throws -> Int64 {
        let rows = try await connection.query("""
            INSERT INTO discovery.swipes (swiper_id, target_id, app, action, quiz) VALUES ($1, $2, $3, $4, $5)
            RETURNING \(MatchStore.micros("created_at"))
            """, [.uuid(swiper), .uuid(target), .text(app), .int16(Int16(action.rawValue)), .bool(quiz)])
        return try rows[0].decode(0)
    }

    /// Whether `target` is someone `viewer` may swipe on: an active profile of the app, not
    /// blocked either way.
    static func isVisible(_ target: UUID, to viewer: UUID, app: String, on connection: Connection) async throws -> Bool {
        let rows = try await connection.query("""
            SELECT EXISTS (
                SELECT 1 FROM discovery.profiles p
                WHERE p.account_id = $1 AND p.app = $3 AND p.active
                  AND NOT EXISTS (SELECT 1 FROM discovery.blocks b
                                  WHERE (b.blocker_id = $1 AND b.blocked_id = $2) OR (b.blocker_id = $2 AND b.blocked_id = $1)))
            """, [.uuid(target), .uuid(viewer), .text(app)])
        return try rows[0].decode(0)
    }

    /// Today's (UTC) likes and super-likes of `account`.
    static func usage(of account: UUID, on connection: Connection) async throws -> (likes: Int32, superLikes: Int32) {
        let rows = try await connection.query("""
            SELECT likes, super_likes FROM discovery.daily_usage WHERE account_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date
            """, [.uuid(account)])
        guard let row = rows.first else { return (0, 0) }
        return (try row.decode(0), try row.decode(1))
    }

    /// Counts one like or super-like against today's allowance unless it is spent (-1: no
    /// limit); the usage after it, or nil when the allowance was spent. Concurrent swipes of
    /// one account queue on its counter row, so the limit holds under any concurrency.
    static func spend(_ action: Discovery.SwipeAction, by account: UUID, likeLimit: Int32, superLikeLimit: Int32,
                      on connection: Connection) async throws -> (likes: Int32, superLikes: Int32)? {
        let (likes, superLikes): (Int32, Int32) = action == .superLike ? (0, 1) : (1, 0)
        let limit = action == .superLike ? superLikeLimit : likeLimit
        if limit == 0 { return nil }
        let rows = try await connection.query("""
            INSERT INTO discovery.daily_usage AS u (account_id, day, likes, super_likes)
            VALUES ($1, (now() AT TIME ZONE 'UTC')::date, $2, $3)
            ON CONFLICT (account_id, day) DO UPDATE SET likes = u.likes + EXCLUDED.likes, super_likes = u.super_likes + EXCLUDED.super_likes
            WHERE ($4 < 0 OR u.likes + EXCLUDED.likes <= $4) AND ($5 < 0 OR u.super_likes + EXCLUDED.super_likes <= $5)
            RETURNING u.likes, u.super_likes
            """, [.uuid(account), .int32(likes), .int32(superLikes),
                  .int32(action == .superLike ? -1 : likeLimit), .int32(action == .superLike ? superLikeLimit : -1)])
        guard let row = rows.first else { return nil }
        return (try row.decode(0), try row.decode(1))
    }

    /// The action `liker` gave `account`, when it was a like or super-like that can match (not
    /// a quiz answer).
    static func like(by liker: UUID, of account: UUID, on connection: Connection) async throws -> Discovery.SwipeAction? {
        let rows = try await connection.query("""
            SELECT action FROM discovery.swipes WHERE swiper_id = $1 AND target_id = $2 AND action >= 2 AND NOT quiz
            """, [.uuid(liker), .uuid(account)])
        return try rows.first.map { Discovery.SwipeAction(rawValue: Int32(try $0.decode(0, as: Int16.self))) }
    }
}
