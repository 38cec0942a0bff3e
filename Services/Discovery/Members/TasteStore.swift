import Contracts
import Foundation
import Postgres

/// A member's tastes, read from their swipes and the profiles they swiped on: how often each
/// tag, interest and cuisine came up among the people they liked and passed.
enum TasteStore {
    static let limit = 20

    static func profile(of account: UUID, on connection: Connection) async throws -> Discovery.TasteProfile {
        let totals = try await connection.query("""
            SELECT count(*) FILTER (WHERE action >= 2)::int4, count(*) FILTER (WHERE action = 1)::int4
            FROM discovery.swipes WHERE swiper_id = $1
            """, [.uuid(account)])
        let counts = try await connection.query("""
            WITH swiped AS (
                SELECT s.action >= 2 AS liked, p.tags, p.interests, p.cuisines
                FROM discovery.swipes s JOIN discovery.profiles p ON p.account_id = s.target_id
                WHERE s.swiper_id = $1
            ), named AS (
                SELECT 'tags' AS kind, unnest(tags) AS name, liked FROM swiped
                UNION ALL SELECT 'interests', unnest(interests), liked FROM swiped
                UNION ALL SELECT 'cuisines', unnest(cuisines), liked FROM swiped
            )
            SELECT kind, name, count(*) FILTER (WHERE liked)::int4 AS liked, count(*) FILTER (WHERE NOT liked)::int4 AS passed
            FROM named GROUP BY kind, name
            ORDER BY kind, liked DESC, passed, name
            """, [.uuid(account)])
        var taste = Discovery.TasteProfile()
        taste.likes = try totals[0].decode(0)
        taste.passes = try totals[0].decode(1)
        for row in counts {
            let count = Discovery.TasteCount(name: try row.decode(1), liked: try row.decode(2), passed: try row.decode(3))
            switch try row.decode(0, as: String.self) {
            case "tags" where taste.tags.count < limit: taste.tags.append(count)
            case "interests" where taste.interests.count < limit: taste.interests.append(count)
            case "cuisines" where taste.cuisines.count < limit: taste.cuisines.append(count)
            default: break
            }
        }
        return taste
    }
}
