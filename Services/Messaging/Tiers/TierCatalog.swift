import Contracts
import RPC
import Synchronization

/// What each app's tiers allow, read from identity's `Membership.ListTiers` and kept for
/// `maxAge` (as discovery's catalog does). A caller's tier comes from its access token's `tier`
/// claim.
final class TierCatalog: Sendable {
    private let client: MembershipClient
    private let maxAge: Duration
    private let cache = Mutex<[String: (tiers: [Membership.Tier], fetchedAt: ContinuousClock.Instant)]>([:])

    init(client: MembershipClient, maxAge: Duration = .seconds(60)) {
        self.client = client
        self.maxAge = maxAge
    }

    /// What `tier` allows in `app`: the app's lowest tier for a name it does not list, nothing
    /// when the app has no tiers; UNAVAILABLE IDENTITY_UNAVAILABLE when identity cannot be asked
    /// and nothing is cached (a stale list is used rather than none).
    func entitlements(app: String, tier: String) async throws(MessagingError) -> Membership.Entitlements {
        let tiers = try await tiers(app: app)
        if let match = tiers.first(where: { $0.name == tier }) { return match.entitlements ?? .init() }
        return tiers.first?.entitlements ?? .init()
    }

    /// Whether a member of `tier` sees read receipts.
    func showsReadReceipts(app: String, tier: String) async throws(MessagingError) -> Bool {
        try await entitlements(app: app, tier: tier).readReceipts
    }

    private func tiers(app: String) async throws(MessagingError) -> [Membership.Tier] {
        let cached = cache.withLock { $0[app] }
        if let cached, ContinuousClock.now - cached.fetchedAt < maxAge { return cached.tiers }
        do {
            let response = try await client.listTiers(.init(app: app), options: CallOptions(timeout: .seconds(3)))
            let tiers = response.tiers.sorted { $0.rank < $1.rank }
            cache.withLock { $0[app] = (tiers, .now) }
            return tiers
        } catch {
            if let cached { return cached.tiers }
            throw .identityUnavailable
        }
    }
}
