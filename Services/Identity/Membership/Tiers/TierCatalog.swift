import Contracts
import Postgres

/// The rows of `identity.tiers`: each app's tiers and their entitlements.
enum TierCatalog {
    static let columns = """
        t.tier, t.display_name, t.rank, t.likes_per_day, t.super_likes_per_day, t.see_who_liked_you,
        t.read_receipts, t.advanced_filters, t.incognito, t.boosts_per_month, t.referral_codes_per_month,
        t.priority_in_discovery, t.video_calls
        """

    /// The app's tiers, lowest rank first.
    static func list(app: String, on connection: Connection) async throws -> [Membership.Tier] {
        try await connection.query("SELECT \(columns) FROM identity.tiers t WHERE t.app = $1 ORDER BY t.rank",
                                   [.text(app)]).map(tier)
    }

    /// One tier of the app, nil when it has no such tier.
    static func find(app: String, tier name: String, on connection: Connection) async throws -> Membership.Tier? {
        try await connection.query("SELECT \(columns) FROM identity.tiers t WHERE t.app = $1 AND t.tier = $2",
                                   [.text(app), .text(name)]).first.map(tier)
    }

    /// The app's default tier: its lowest rank.
    static func defaultTier(app: String, on connection: Connection) async throws -> Membership.Tier? {
        try await connection.query("SELECT \(columns) FROM identity.tiers t WHERE t.app = $1 ORDER BY t.rank LIMIT 1",
                                   [.text(app)]).first.map(tier)
    }

    /// A tier from a row starting with `columns`.
    static func tier(_ row: PostgresRow) throws -> Membership.Tier {
        var entitlements = Membership.Entitlements()
        entitlements.likesPerDay = try row.decode(3, as: Int32?.self) ?? Membership.Entitlements.unlimited
        entitlements.superLikesPerDay = try row.decode(4)
        entitlements.seeWhoLikedYou = visibility(try row.decode(5))
        entitlements.readReceipts = try row.decode(6)
        entitlements.advancedFilters = try row.decode(7)
        entitlements.incognito = try row.decode(8)
        entitlements.boostsPerMonth = try row.decode(9)
        entitlements.referralCodesPerMonth = try row.decode(10)
        entitlements.priorityInDiscovery = try row.decode(11)
        entitlements.videoCalls = try row.decode(12)
        var tier = Membership.Tier()
        tier.name = try row.decode(0)
        tier.displayName = try row.decode(1)
        tier.rank = try row.decode(2)
        tier.entitlements = entitlements
        return tier
    }

    private static func visibility(_ text: String) -> Membership.LikesVisibility {
        switch text {
        case "hidden": .hidden
        case "blurred": .blurred
        case "clear": .clear
        default: .unspecified
        }
    }
}
