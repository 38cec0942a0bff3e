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

    /// One swipe to record: who swipes on whom, how, and the allowance a like counts against.
    struct Swipe: Sendable {
        var action: Discovery.SwipeAction
        var swiper: UUID
        var target: UUID
        var app: String
        var quiz: Bool
        /// The day's allowance of the like's kind (-1: no limit).
        var limit: Int32
        var day: AllowanceDay
    }

    /// One swipe in one statement (migration 16's `discovery.swipe`): takes the pair's lock (swipes
    /// between the same two people queue, so the later of two crossing likes sees the earlier),
    /// reads what the swiper may do, counts a like against `day`'s allowance of its kind, and
    /// records it. Outside a transaction it commits at once: one round trip.
    static func swipe(_ swipe: Swipe, matchAllowed: Bool, on connection: Connection) async throws -> Outcome {
        let rows = try await connection.query("SELECT * FROM discovery.swipe($1, $2, $3, $4, $5, $6, $7, $8)",
                                              [.uuid(swipe.swiper), .uuid(swipe.target), .text(swipe.app),
                                               .int16(Int16(swipe.action.rawValue)), .bool(swipe.quiz), .int32(swipe.limit),
                                               .int32(swipe.day.number), .bool(matchAllowed)])
        return try outcome(rows[0])
    }

    /// Many swipes in one statement, each as `swipe(_:matchAllowed: false, on:)` records it and in
    /// one transaction (group commit, `GroupCommitQueue`): answers in `batch`'s order.
    ///
    /// They run sorted by swiper and target, so two batches take the rows they share (a swiper's
    /// allowance and feed version) in one order; what can still cross (a pair's lock) ends one
    /// batch as a deadlock, which the queue retries swipe by swipe. Two swipes of one swiper on
    /// one person keep their order in the batch; a swiper's swipes on different people run in
    /// the order of the people's ids (they arrived together, so either order is one they could
    /// have come in).
    static func swipe(_ batch: [Swipe], on connection: Connection) async throws -> [Outcome] {
        let order = batch.indices.sorted { a, b in
            let (x, y) = (batch[a], batch[b])
            if x.swiper != y.swiper { return x.swiper < y.swiper }
            if x.target != y.target { return x.target < y.target }
            return a < b
        }
        let sorted = order.map { batch[$0] }
        let rows = try await connection.query("""
            SELECT s.* FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::smallint[], $5::boolean[], $6::integer[], $7::integer[])
                WITH ORDINALITY AS b(swiper, target, app, action, quiz, lim, day, n)
            CROSS JOIN LATERAL discovery.swipe(b.swiper, b.target, b.app, b.action, b.quiz, b.lim, b.day, false) s
            ORDER BY b.n
            """, [.uuidArray(sorted.map(\.swiper)), .uuidArray(sorted.map(\.target)), .textArray(sorted.map(\.app)),
                  .int16Array(sorted.map { Int16($0.action.rawValue) }), .boolArray(sorted.map(\.quiz)),
                  .int32Array(sorted.map(\.limit)), .int32Array(sorted.map(\.day.number))])
        guard rows.count == batch.count else {
            throw PostgresError(code: .protocolViolation, context: "discovery.swipe answered \(rows.count) of \(batch.count) swipes")
        }
        var outcomes = [Outcome?](repeating: nil, count: batch.count)
        for (position, index) in order.enumerated() { outcomes[index] = try outcome(rows[position]) }
        return outcomes.map { $0! }
    }

    /// What one row of `discovery.swipe` says.
    private static func outcome(_ row: PostgresRow) throws -> Outcome {
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
