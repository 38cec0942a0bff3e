import Foundation
import Postgres

/// What tells whether a viewer's feed window may have changed, read in one statement: the
/// app's version (bumped with every change of its profiles or connections), the viewer's own
/// (their swipes, blocks either way, reports) and how many likes they have received. Migration
/// 15's triggers and `discovery.swipe` keep the versions, so every writer bumps them, on any
/// instance. Likes received
/// are counted rather than versioned: a version on the liked person's row would make every
/// like of one person queue on it.
struct FeedStamp: Sendable, Equatable {
    var app: Int64
    var member: Int64
    var likesReceived: Int64

    static func read(viewer: UUID, app: String) -> PostgresStatement {
        PostgresStatement("""
            SELECT coalesce((SELECT version FROM discovery.feed_app_versions WHERE app = $2), 0),
                   coalesce((SELECT version FROM discovery.feed_member_versions WHERE account_id = $1), 0),
                   (SELECT count(*) FROM discovery.swipes WHERE target_id = $1 AND action >= 2)
            """, [.uuid(viewer), .text(app)])
    }

    init(app: Int64, member: Int64, likesReceived: Int64) {
        self.app = app
        self.member = member
        self.likesReceived = likesReceived
    }

    init(_ rows: PostgresRows) throws {
        let row = rows[0]
        self.init(app: try row.decode(0), member: try row.decode(1), likesReceived: try row.decode(2))
    }
}
