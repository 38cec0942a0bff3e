/// The values of `identity.accounts.membership_status` Membership reads and writes.
enum MembershipStatus {
    /// A full member: may use the app (and, where the app has member referrals, invite).
    static let active = "active"
    /// Waiting for the committee or a referral code (invite-only apps start here).
    static let waitlisted = "waitlisted"
    /// Turned down by the committee.
    static let rejected = "rejected"
}
