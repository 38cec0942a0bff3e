import Foundation
import Postgres
import Runtime

/// Likes and super-likes an account received and has not answered yet (no swipe back), from
/// active profiles it has not blocked and that have not blocked it.
enum LikesStore {
    struct Entry: Sendable {
        /// The like's own id (not the liker's): the page token's tiebreak.
        var id: UUID
        var liker: UUID
        var publicName: String
        var photoIDs: [String]
        var superLike: Bool
        var likedAt: Int64
    }

    private static let pending = """
        FROM discovery.swipes s JOIN discovery.profiles p ON p.account_id = s.swiper_id AND p.active AND p.admitted AND p.app = $2
        WHERE s.target_id = $1 AND s.action >= 2
          AND NOT EXISTS (SELECT 1 FROM discovery.swipes back WHERE back.swiper_id = $1 AND back.target_id = s.swiper_id)
          AND NOT EXISTS (SELECT 1 FROM discovery.blocks b
                          WHERE (b.blocker_id = $1 AND b.blocked_id = s.swiper_id) OR (b.blocker_id = s.swiper_id AND b.blocked_id = $1))
        """

    static func count(of account: UUID, app: String, on connection: Connection) async throws -> Int {
        try await connection.query("SELECT count(*) \(pending)", [.uuid(account), .text(app)])[0].decode(0)
    }

    /// Up to `limit` after `cursor` (a like's time and id), newest first.
    static func list(of account: UUID, app: String, after cursor: PageCursor?, limit: Int,
                     on connection: Connection) async throws -> [Entry] {
        let rows = try await connection.query("""
            SELECT s.swiper_id, p.public_name, p.photo_ids, s.action = 3, \(UnixMicroseconds.sql("s.created_at")), s.id
            \(pending)
              AND ($3::int8 IS NULL OR (\(UnixMicroseconds.sql("s.created_at")), s.id) < ($3::int8, $4::uuid))
            ORDER BY s.created_at DESC, s.id DESC
            LIMIT $5
            """, [.uuid(account), .text(app), .int64(cursor?.microseconds), .uuid(cursor?.id), .int(limit)])
        return try rows.map { row in
            Entry(id: try row.decode(5), liker: try row.decode(0), publicName: try row.decode(1), photoIDs: try row.decode(2),
                  superLike: try row.decode(3), likedAt: try row.decode(4))
        }
    }
}
