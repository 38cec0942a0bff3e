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

    /// What `swipe` did. `used` is the swiper's usage on the day after it.
    enum Outcome: Sendable {
        case recorded(swipedAt: Int64, likedBack: Discovery.SwipeAction?, used: (likes: Int32, superLikes: Int32))
        /// The swiper had swiped on the target before; nothing was written.
        case existing(Existing, used: (likes: Int32, superLikes: Int32))
        /// Not someone the swiper may swipe on (no active, admitted profile of the app, or
        /// blocked either way).
        case hidden
        /// The day's allowance of the like's kind is spent.
        case allowanceSpent
        /// A like that completes a match, not recorded: swipe again with `matchAllowed` in the
        /// transaction that creates the match.
        case wouldMatch
    }

    /// One swipe in one statement (migration 16's `discovery.swipe`): takes the pair's lock (swipes
    /// between the same two people queue, so the later of two crossing likes sees the earlier),
    /// reads what the swiper may do, counts a like against `day`'s allowance of its kind, `limit`
    /// (-1: no limit), and records it. Outside a transaction it commits at once: one round trip.
    static func swipe(_ action: Discovery.SwipeAction, by swiper: UUID, on target: UUID, app: String, quiz: Bool,
                      limit: Int32, day: AllowanceDay, matchAllowed: Bool, on connection: Connection) async throws -> Outcome {
        let rows = try await connection.query("SELECT * FROM discovery.swipe($1, $2, $3, $4, $5, $6, $7, $8)",
                                              [.uuid(swiper), .uuid(target), .text(app), .int16(Int16(action.rawValue)),
                                               .bool(quiz), .int32(limit), .int32(day.number), .bool(matchAllowed)])
        let row = rows[0]
        let used = (likes: try row.decode(4, as: Int32?.self) ?? 0, superLikes: try row.decode(5, as: Int32?.self) ?? 0)
        switch try row.decode(0, as: Int16.self) {
        case 1:
            let likedBack = try row.decode(3, as: Int16?.self).map { Discovery.SwipeAction(rawValue: Int32($0)) }
            return .recorded(swipedAt: try row.decode(2), likedBack: likedBack, used: used)
        case 2:
            let existing = Existing(action: Discovery.SwipeAction(rawValue: Int32(try row.decode(1, as: Int16.self))),
                                    createdAt: try row.decode(2))
            return .existing(existing, used: used)
        case 3: return .hidden
        case 4: return .allowanceSpent
        default: return .wouldMatch  // 5, the function's last outcome
        }
    }

    /// The likes and super-likes `account` spent on `day`.
    static func usage(of account: UUID, day: AllowanceDay, on connection: Connection) async throws -> (likes: Int32, superLikes: Int32) {
        let rows = try await connection.query("""
            SELECT likes, super_likes FROM discovery.daily_usage WHERE account_id = $1 AND day = date '1970-01-01' + $2::integer
            """, [.uuid(account), .int32(day.number)])
        guard let row = rows.first else { return (0, 0) }
        return (try row.decode(0), try row.decode(1))
    }
}
