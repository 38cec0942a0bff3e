import Contracts
import Foundation
import Postgres

/// Rows of `discovery.swipes` (one per ordered pair) and the daily allowance counters of
/// `discovery.daily_usage`, counted per UTC day (`AllowanceDay`, chosen by the caller's clock).
enum SwipeStore {
    struct Existing: Sendable {
        var action: Discovery.SwipeAction
        var createdAt: Int64
    }

    /// Serialises swipes between the same two people, whoever swipes and on whichever
    /// instance: the later of two crossing likes then sees the earlier and makes the match.
    static func lockPair(_ a: UUID, _ b: UUID) -> PostgresStatement {
        PostgresStatement("""
            SELECT pg_advisory_xact_lock(hashtextextended(LEAST($1::uuid, $2::uuid)::text || GREATEST($1::uuid, $2::uuid)::text, 7102))
            """, [.uuid(a), .uuid(b)])
    }

    /// What a swipe needs to know, in one statement once the pair is locked: the swiper's earlier
    /// swipe on the target, whether the target is someone they may swipe on (an active profile
    /// of the app, admitted, not blocked either way), and the swiper's usage on `day`.
    struct State: Sendable {
        var existing: Existing?
        var visible: Bool
        var used: (likes: Int32, superLikes: Int32)
    }

    /// Takes the pair's lock, then reads the swipe's `State`, in one round trip (a pipeline): the
    /// read is a statement of its own that starts once the lock is held, so it sees every swipe
    /// of the pair committed before.
    static func lockPairAndReadState(of swiper: UUID, on target: UUID, app: String, day: AllowanceDay,
                                     on connection: Connection) async throws -> State {
        let results = try await connection.pipeline([lockPair(swiper, target), PostgresStatement("""
            SELECT s.action, \(UnixMicroseconds.sql("s.created_at")),
                   EXISTS (SELECT 1 FROM discovery.profiles p
                           WHERE p.account_id = $2 AND p.app = $3 AND p.active AND p.admitted
                             AND NOT EXISTS (SELECT 1 FROM discovery.blocks b
                                             WHERE (b.blocker_id = $2 AND b.blocked_id = $1)
                                                OR (b.blocker_id = $1 AND b.blocked_id = $2))),
                   coalesce(u.likes, 0), coalesce(u.super_likes, 0)
            FROM (SELECT 1) one
            LEFT JOIN discovery.swipes s ON s.swiper_id = $1 AND s.target_id = $2
            LEFT JOIN discovery.daily_usage u ON u.account_id = $1 AND u.day = date '1970-01-01' + $4::integer
            """, [.uuid(swiper), .uuid(target), .text(app), .int32(day.number)])])
        let row = results[1][0]
        let existing = try row.decode(0, as: Int16?.self).map { action in
            Existing(action: Discovery.SwipeAction(rawValue: Int32(action)), createdAt: try row.decode(1))
        }
        return State(existing: existing, visible: try row.decode(2), used: (try row.decode(3), try row.decode(4)))
    }

    /// Records the swipe and, in the same statement, finds the target's like of the swiper that
    /// can match (not a quiz answer); the caller holds the pair's lock, so that like is settled.
    static func insert(by swiper: UUID, on target: UUID, app: String, action: Discovery.SwipeAction, quiz: Bool,
                       on connection: Connection) async throws -> (swipedAt: Int64, likedBack: Discovery.SwipeAction?) {
        let statement = insert(by: swiper, on: target, app: app, action: action, quiz: quiz)
        return try inserted(try await connection.query(statement.sql, statement.params))
    }

    private static func insert(by swiper: UUID, on target: UUID, app: String, action: Discovery.SwipeAction,
                               quiz: Bool) -> PostgresStatement {
        PostgresStatement("""
            WITH inserted AS (
                INSERT INTO discovery.swipes (swiper_id, target_id, app, action, quiz) VALUES ($1, $2, $3, $4, $5)
                RETURNING created_at
            )
            SELECT \(UnixMicroseconds.sql("created_at")),
                   (SELECT action FROM discovery.swipes WHERE swiper_id = $2 AND target_id = $1 AND action >= 2 AND NOT quiz)
            FROM inserted
            """, [.uuid(swiper), .uuid(target), .text(app), .int16(Int16(action.rawValue)), .bool(quiz)])
    }

    private static func inserted(_ rows: PostgresRows) throws -> (swipedAt: Int64, likedBack: Discovery.SwipeAction?) {
        let likedBack = try rows[0].decode(1, as: Int16?.self).map { Discovery.SwipeAction(rawValue: Int32($0)) }
        return (try rows[0].decode(0), likedBack)
    }

    /// A like or super-like: counts it against `day`'s allowance of its kind, `limit` (-1: no
    /// limit), and records it (`insert`), in one round trip. Nil when the allowance was spent:
    /// the swipe was recorded all the same, so the caller must then fail the transaction.
    /// Concurrent swipes of one account queue on its counter row, so the limit holds under any
    /// concurrency.
    static func spendAndInsert(_ action: Discovery.SwipeAction, by swiper: UUID, on target: UUID, app: String, quiz: Bool,
                               limit: Int32, day: AllowanceDay, on connection: Connection) async throws
        -> (used: (likes: Int32, superLikes: Int32), swipedAt: Int64, likedBack: Discovery.SwipeAction?)? {
        if limit == 0 { return nil }
        let results = try await connection.pipeline([spend(action, by: swiper, limit: limit, day: day),
                                                     insert(by: swiper, on: target, app: app, action: action, quiz: quiz)])
        guard let row = results[0].first else { return nil }
        let (swipedAt, likedBack) = try inserted(results[1])
        return ((try row.decode(0), try row.decode(1)), swipedAt, likedBack)
    }

    /// The likes and super-likes `account` spent on `day`.
    static func usage(of account: UUID, day: AllowanceDay, on connection: Connection) async throws -> (likes: Int32, superLikes: Int32) {
        let rows = try await connection.query("""
            SELECT likes, super_likes FROM discovery.daily_usage WHERE account_id = $1 AND day = date '1970-01-01' + $2::integer
            """, [.uuid(account), .int32(day.number)])
        guard let row = rows.first else { return (0, 0) }
        return (try row.decode(0), try row.decode(1))
    }

    /// Counts one like or super-like against `day`'s allowance of that kind unless it is spent,
    /// returning the usage after it (no row when it was spent).
    private static func spend(_ action: Discovery.SwipeAction, by account: UUID, limit: Int32,
                              day: AllowanceDay) -> PostgresStatement {
        let (likes, superLikes): (Int32, Int32) = action == .superLike ? (0, 1) : (1, 0)
        return PostgresStatement("""
            INSERT INTO discovery.daily_usage AS u (account_id, day, likes, super_likes)
            VALUES ($1, date '1970-01-01' + $6::integer, $2, $3)
            ON CONFLICT (account_id, day) DO UPDATE SET likes = u.likes + EXCLUDED.likes, super_likes = u.super_likes + EXCLUDED.super_likes
            WHERE ($4 < 0 OR u.likes + EXCLUDED.likes <= $4) AND ($5 < 0 OR u.super_likes + EXCLUDED.super_likes <= $5)
            RETURNING u.likes, u.super_likes
            """, [.uuid(account), .int32(likes), .int32(superLikes),
                  .int32(action == .superLike ? -1 : limit), .int32(action == .superLike ? limit : -1), .int32(day.number)])
    }
}
