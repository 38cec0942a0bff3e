import Auth
import Contracts
import Postgres
import RPC
import Runtime

/// `rendezvous.identity.v1.Membership`: tiers and entitlements, App Store transactions,
/// referral codes, the committee's waitlist and public email waitlists. The handlers live in
/// one extension per feature (`MembershipService+Tiers.swift`, …).
struct MembershipService: MembershipProvider {
    let pool: PostgresPool
    let settings: IdentitySettings
    let outbox: Outbox
    /// This process's list of stale accounts, told at once of a tier or membership change.
    var revocationList: RevocationList? = nil

    /// Methods callable without an access token.
    static let publicMethods: Set<String> = Set(
        ["ListTiers", "JoinWaitlist", "GetWaitlistPosition"].map { "/\(MembershipClient.serviceName)/\($0)" })
}
