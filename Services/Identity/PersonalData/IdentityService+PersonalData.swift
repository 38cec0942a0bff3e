import Contracts
import RPC
import Runtime

/// `ExportMyData`: what identity holds about the caller (rendezvous/privacy/v1/privacy.proto).
extension IdentityService {
    /// Identity's sections: every table that holds members' data, and the rows of it that are the member's.
    static let personalData: [PersonalDataSection] = [
        .init("accounts", "The account: app, username, role, tier and membership status.", where: "t.id = $1"),
        .init("email_credentials", "The email the member signs in with, and sign-in failures (the password hash is left out).",
              where: "t.account_id = $1", omitting: ["password_hash"]),
        .init("phone_credentials", "The phone number the member signs in with.", where: "t.account_id = $1"),
        .init("provider_credentials", "The Apple and Google identities linked to the account.", where: "t.account_id = $1"),
        .init("phone_codes", "One-time codes sent to the member's phone number: when and how often (the codes are left out).",
              where: "(t.app, t.phone) IN (SELECT app, phone FROM identity.phone_credentials WHERE account_id = $1)",
              omitting: ["code_salt", "code_hash"], order: "t.last_sent_at"),
        .init("sessions", "The member's sign-ins: each session's device, times, and revocation.", where: "t.account_id = $1"),
        .init("refresh_tokens", "Each use of a session's refresh tokens (the tokens are left out).",
              where: "t.session_id IN (SELECT id FROM identity.sessions WHERE account_id = $1)", omitting: ["token_hash"]),
        .init("push_tokens", "The push tokens of the member's devices.", where: "t.account_id = $1"),
        .init("profiles", "The member's profile; location as WKT (longitude latitude).", where: "t.account_id = $1",
              rendering: ["location": "public.ST_AsText(t.location)"]),
        .init("membership_decisions", "Admission decisions about the account (who decided is left out).",
              where: "t.account_id = $1", omitting: ["decided_by"], order: "t.decided_at"),
        .init("referral_codes", "Referral codes the member created, and the one they joined with.",
              where: "t.owner_id = $1 OR t.used_by = $1"),
        .init("referral_attempts", "Failed referral-code attempts of the account.", where: "t.account_id = $1",
              order: "t.first_miss_at"),
        .init("waitlist_entries", "The member's place on the app's public waitlist, by the email they signed in with.",
              where: "(t.app, t.email) IN (SELECT app, email FROM identity.email_credentials WHERE account_id = $1)",
              order: "t.joined_at"),
        .init("tier_grants", "Subscription tiers granted to the account (who granted is left out).",
              where: "t.account_id = $1", omitting: ["granted_by"], order: "t.updated_at"),
        .init("app_store_subscriptions", "App Store subscriptions bound to the account.", where: "t.account_id = $1",
              order: "t.bound_at"),
        .init("app_store_transactions", "The App Store purchases of those subscriptions.",
              where: """
                  (t.app, t.original_transaction_id) IN
                  (SELECT app, original_transaction_id FROM identity.app_store_subscriptions WHERE account_id = $1)
                  """, order: "t.applied_at"),
        .init("blocks", "Members the member blocked (never who blocked them).", where: "t.blocker_id = $1"),
        .init("reports", "Reports the member made and their status (never reports about them; moderators' notes are left out).",
              where: "t.reporter_id = $1", omitting: ["reviewer_id", "review_note", "resolver_id", "resolution_note"]),
    ]

    func exportMyData(_ request: Privacy.ExportMyDataRequest, context: ServerCallContext) async throws -> Privacy.PersonalDataExport {
        try await PersonalDataExporter(service: "identity", sections: Self.personalData, pool: pool).export(request, context: context)
    }
}
