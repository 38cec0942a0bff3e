import Contracts
import RPC
import Runtime

/// `ExportMyData` (on Casting, for all of production): what production holds about the caller
/// (rendezvous/privacy/v1/privacy.proto).
extension CastingService {
    /// Production's sections: every table that holds members' data, and the rows of it that are the member's.
    static let personalData: [PersonalDataSection] = [
        .init("applications", "The member's casting applications, every step they saved.", where: "t.account_id = $1"),
        .init("cast_members", "The episodes the member was cast in.", where: "t.account_id = $1", order: "t.cast_at"),
        .init("consent_records", "The member's consent records, as captured (immutable; who captured them is left out).",
              where: "t.participant_id = $1", omitting: ["captured_by"]),
        .init("matches", "The member's matches as production follows them, with the other member's id.",
              where: "t.account_ids @> ARRAY[$1]::uuid[]", order: "t.matched_at"),
        .init("dates", "The member's dates.", where: "t.account_ids @> ARRAY[$1]::uuid[]"),
        .init("date_reviews", "The reviews the member wrote of their dates (never the other's review of them).",
              where: "t.reviewer_id = $1"),
        .init("outfits", "The wardrobe items the member wore in episodes.", where: "t.worn_by = $1"),
        .init("points_entries", "The member's points (The Unseen), each entry as awarded.", where: "t.account_id = $1"),
    ]

    func exportMyData(_ request: Privacy.ExportMyDataRequest, context: ServerCallContext) async throws -> Privacy.PersonalDataExport {
        try await PersonalDataExporter(service: "production", sections: Self.personalData, pool: pool).export(request, context: context)
    }
}
