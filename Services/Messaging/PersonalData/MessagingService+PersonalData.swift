import Contracts
import RPC
import Runtime

/// `ExportMyData`: what messaging holds about the caller (rendezvous/privacy/v1/privacy.proto).
extension MessagingService {
    /// The member's conversations, as an SQL condition on a `conversation_id` column.
    private static let theirConversations = "SELECT conversation_id FROM messaging.members WHERE account_id = $1"
    private static let inTheirConversations = "t.conversation_id IN (\(theirConversations))"

    /// An encounter's column of one side, shown only on that side's own encounters (the other
    /// initiate's code, resonance and artifact are theirs until the encounter shows them).
    private static func ownSide(_ column: String) -> [String: String] {
        ["starter_\(column)": "CASE WHEN t.starter_id = $1 THEN t.starter_\(column) END",
         "joiner_\(column)": "CASE WHEN t.joiner_id = $1 THEN t.joiner_\(column) END"]
    }

    /// Messaging's sections: every table that holds members' data, and the rows of it that are the member's.
    static let personalData: [PersonalDataSection] = [
        .init("conversations", "The member's conversations (one per match).", where: "t.id IN (\(theirConversations))",
              order: "t.matched_at"),
        .init("members", "The member's side of each conversation: the other member's id and what the member read.",
              where: "t.account_id = $1", order: "t.conversation_id"),
        .init("messages", "The messages of the member's conversations, sent and received.", where: inTheirConversations,
              order: "t.sent_at"),
        .init("icebreakers", "The conversation starters suggested in the member's conversations.", where: inTheirConversations,
              order: "t.generated_at"),
        .init("calls", "The member's calls, made and received.", where: "t.caller_id = $1 OR t.callee_id = $1"),
        .init("call_signals", "The call signals the member's device sent (the other device's are left out).",
              where: "t.sender_id = $1", order: "t.sent_at"),
        .init("encounters",
              "The Unseen encounters the member started or joined; the other initiate's code, resonance and artifact are left out.",
              where: "t.starter_id = $1 OR t.joiner_id = $1",
              rendering: ownSide("code").merging(ownSide("resonance")) { $1 }.merging(ownSide("artifact")) { $1 }),
        .init("encounter_awards", "What the member was awarded in encounters.", where: "t.account_id = $1", order: "t.awarded_at"),
        .init("member_tastes", "The cuisines icebreakers use for the member (copied from their profile).", where: "t.account_id = $1",
              order: "t.account_id"),
        .init("blocks", "Members the member blocked (never who blocked them).", where: "t.blocker_id = $1", order: "t.blocked_id"),
        .init("push_categories", "The member's push settings by category.", where: "t.account_id = $1", order: "t.category"),
        .init("push_quiet_hours", "The member's quiet hours.", where: "t.account_id = $1", order: "t.account_id"),
        .init("push_jobs", "The pushes planned for the member.", where: "t.account_id = $1"),
        .init("push_deliveries", "Each push sent to the member's devices and its outcome (the token's hash is left out).",
              where: "t.account_id = $1", omitting: ["token_sha256"], order: "t.sent_at"),
        .init("realtime",
              "The recent events of the member's realtime stream, by type and time (their contents are the records above).",
              where: "t.aggregate_id = $1::text", omitting: ["payload"], order: "t.cursor"),
    ]

    func exportMyData(_ request: Privacy.ExportMyDataRequest, context: ServerCallContext) async throws -> Privacy.PersonalDataExport {
        try await PersonalDataExporter(service: "messaging", sections: Self.personalData, pool: pool).export(request, context: context)
    }
}
