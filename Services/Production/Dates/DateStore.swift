import Contracts
import Foundation
import Postgres
import Runtime

/// Dates of matched pairs and their reviews.
enum DateStore {
    static let columns = """
        d.id, d.match_id, d.proposed_by, d.account_ids, d.restaurant_id, \(UnixMicroseconds.sql("d.scheduled_at")), d.status,
        \(UnixMicroseconds.sql("d.created_at"))
        """

    /// The match's two people when it is `app`'s and has not ended.
    static func activeMatch(_ id: UUID, app: String, on connection: Connection) async throws -> [UUID]? {
        let rows = try await connection.query("""
            SELECT account_ids FROM production.matches WHERE id = $1 AND app = $2 AND ended_at IS NULL
            """, [.uuid(id), .text(app)])
        return try rows.first?.decode(0, as: [UUID].self)
    }

    static func matchExists(_ id: UUID, app: String, on connection: Connection) async throws -> [UUID]? {
        try await connection.query("SELECT account_ids FROM production.matches WHERE id = $1 AND app = $2", [.uuid(id), .text(app)])
            .first?.decode(0, as: [UUID].self)
    }

    static func insert(app: String, match: UUID, accounts: [UUID], proposedBy: UUID, restaurant: String, at: Int64,
                       on connection: Connection) async throws -> UUID {
        let id = UUID.random()
        try await connection.query("""
            INSERT INTO production.dates (id, app, match_id, account_ids, proposed_by, restaurant_id, scheduled_at)
            VALUES ($1, $2, $3, $4, $5, $6, to_timestamp($7::float8 / 1000000))
            """, [.uuid(id), .text(app), .uuid(match), .uuidArray(accounts), .uuid(proposedBy), .text(restaurant), .int64(at)])
        return id
    }

    /// A date of `app`, locked for this transaction when `lock`.
    static func find(_ id: UUID, app: String, lock: Bool = false, on connection: Connection) async throws -> Production.Date? {
        let rows = try await connection.query("""
            SELECT \(columns) FROM production.dates d WHERE d.id = $1 AND d.app = $2 \(lock ? "FOR UPDATE OF d" : "")
            """, [.uuid(id), .text(app)])
        guard let row = rows.first else { return nil }
        return try await withReviews(try date(row), on: connection)
    }

    static func setStatus(_ id: UUID, to status: Production.DateStatus, on connection: Connection) async throws {
        try await connection.query("UPDATE production.dates SET status = $2 WHERE id = $1", [.uuid(id), .int16(Int16(status.rawValue))])
    }

    /// Stores the review; false when this reviewer had already reviewed the date.
    static func review(_ id: UUID, by reviewer: UUID, _ request: Production.ReviewDateRequest, on connection: Connection) async throws
        -> Bool {
        try await !connection.query("""
            INSERT INTO production.date_reviews (date_id, reviewer_id, vibe_tags, would_meet_again, note) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT DO NOTHING RETURNING 1
            """, [.uuid(id), .uuid(reviewer), .textArray(request.vibeTags.map { $0.lowercased() }), .bool(request.wouldMeetAgain),
                  .text(request.note)]).isEmpty
    }

    /// Dates of `app` newest first: `account`'s (nil: anyone's), of `match` when given.
    static func list(app: String, account: UUID?, match: UUID?, after cursor: PageCursor?, limit: Int,
                     on connection: Connection) async throws -> [Production.Date] {
        let rows = try await connection.query("""
            SELECT \(columns) FROM production.dates d
            WHERE d.app = $1 AND ($2::uuid IS NULL OR d.account_ids @> ARRAY[$2::uuid]) AND ($3::uuid IS NULL OR d.match_id = $3)
              AND ($4::int8 IS NULL OR (\(UnixMicroseconds.sql("d.created_at")), d.id) < ($4, $5::uuid))
            ORDER BY d.created_at DESC, d.id DESC LIMIT $6
            """, [.text(app), .uuid(account), .uuid(match), .int64(cursor?.microseconds), .uuid(cursor?.id), .int(limit)])
        var dates: [Production.Date] = []
        for row in rows { dates.append(try await withReviews(try date(row), on: connection)) }
        return dates
    }

    /// The reviews of completed dates of anyone in `accounts`, newest first (content scripts).
    static func reviews(of accounts: [UUID], app: String, limit: Int, on connection: Connection) async throws
        -> [(date: UUID, review: Production.DateReview)] {
        try await connection.query("""
            SELECT d.id, r.reviewer_id, r.vibe_tags, r.would_meet_again, r.note, \(UnixMicroseconds.sql("r.created_at"))
            FROM production.dates d JOIN production.date_reviews r ON r.date_id = d.id
            WHERE d.app = $1 AND d.status = 3 AND d.account_ids && $2
            ORDER BY r.created_at DESC LIMIT $3
            """, [.text(app), .uuidArray(accounts), .int(limit)]).map { row in
            (try row.decode(0, as: UUID.self),
             Production.DateReview(reviewerID: try row.decode(1, as: UUID.self).lowercased, vibeTags: try row.decode(2),
                                   wouldMeetAgain: try row.decode(3), note: try row.decode(4),
                                   createdAt: Timestamp(microseconds: try row.decode(5))))
        }
    }

    private static func withReviews(_ date: Production.Date, on connection: Connection) async throws -> Production.Date {
        var date = date
        date.reviews = try await connection.query("""
            SELECT reviewer_id, vibe_tags, would_meet_again, note, \(UnixMicroseconds.sql("created_at"))
            FROM production.date_reviews WHERE date_id = $1::uuid ORDER BY created_at
            """, [.text(date.id)]).map { row in
            Production.DateReview(reviewerID: try row.decode(0, as: UUID.self).lowercased, vibeTags: try row.decode(1),
                                  wouldMeetAgain: try row.decode(2), note: try row.decode(3),
                                  createdAt: Timestamp(microseconds: try row.decode(4)))
        }
        return date
    }

    private static func date(_ row: PostgresRow) throws -> Production.Date {
        var date = Production.Date()
        date.id = try row.decode(0, as: UUID.self).lowercased
        date.matchID = try row.decode(1, as: UUID.self).lowercased
        date.proposedBy = try row.decode(2, as: UUID.self).lowercased
        date.accountIDs = try row.decode(3, as: [UUID].self).map(\.lowercased)
        date.restaurantID = try row.decode(4)
        date.scheduledAt = Timestamp(microseconds: try row.decode(5))
        date.status = Production.DateStatus(rawValue: Int32(try row.decode(6, as: Int16.self)))
        date.createdAt = Timestamp(microseconds: try row.decode(7))
        return date
    }
}
