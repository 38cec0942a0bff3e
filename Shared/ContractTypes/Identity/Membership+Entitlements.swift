extension Membership.Entitlements {
    /// The value of a daily allowance (likes, super-likes) that has no limit, as membership.proto
    /// documents it.
    public static let unlimited: Int32 = -1
}
