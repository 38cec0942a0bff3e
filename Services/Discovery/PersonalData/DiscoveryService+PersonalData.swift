import Contracts
import RPC
import Runtime

/// `ExportMyData`: what discovery holds about the caller (rendezvous/privacy/v1/privacy.proto).
extension DiscoveryService {
    /// Discovery's sections: every table that holds members' data, and the rows of it that are the member's.
    static let personalData: [PersonalDataSection] = [
        .init("profiles", "The member's profile as feeds rank it (copied from identity); location as WKT (longitude latitude).",
              where: "t.account_id = $1", rendering: ["location": "public.ST_AsText(t.location)"], order: "t.listed_at"),
        .init("swipes", "The member's swipes: whom they passed, liked or super-liked (never others' swipes on them).",
              where: "t.swiper_id = $1"),
        .init("matches", "The member's matches, with the other member's id; ended ones until the match is purged.",
              where: "t.account_low = $1 OR t.account_high = $1"),
        .init("daily_usage", "Likes and super-likes the member used per day.", where: "t.account_id = $1", order: "t.day"),
        .init("boosts", "The member's boosts.", where: "t.account_id = $1", order: "t.started_at"),
        .init("connections", "Members the member knows (from a referral, their contacts or Instagram), by source.",
              where: "t.account_id = $1"),
        .init("instagram_links", "The member's linked Instagram account.", where: "t.account_id = $1", order: "t.account_id"),
        .init("instagram_related", "Instagram accounts related to the member's, from their import.", where: "t.account_id = $1",
              order: "t.instagram_id"),
        .init("blocks", "Members the member blocked (never who blocked them).", where: "t.blocker_id = $1", order: "t.blocked_id"),
        .init("reports", "Members the member reported (never who reported them).", where: "t.reporter_id = $1",
              order: "t.reported_id"),
        .init("group_sessions", "Group swipe sessions the member created or joined.",
              where: """
                  t.id IN (SELECT id FROM discovery.group_sessions WHERE creator_id = $1
                           UNION SELECT session_id FROM discovery.session_participants WHERE account_id = $1)
                  """),
        .init("session_participants", "When the member joined each group session.", where: "t.account_id = $1",
              order: "t.joined_at"),
        .init("session_likes", "The options the member liked in group sessions.", where: "t.account_id = $1"),
        .init("feed_member_versions", "A counter of changes to the member's feed (for feed caches).", where: "t.account_id = $1",
              order: "t.account_id"),
    ]

    func exportMyData(_ request: Privacy.ExportMyDataRequest, context: ServerCallContext) async throws -> Privacy.PersonalDataExport {
        try await PersonalDataExporter(service: "discovery", sections: Self.personalData, pool: pool).export(request, context: context)
    }
}
