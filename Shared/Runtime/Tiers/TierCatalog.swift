package import Contracts
import RPC
import Synchronization

/// The tiers of each app and what they allow, read from identity's `Membership.ListTiers`
/// (tiers are identity's data, rows of `identity.tiers`) and kept for `maxAge`: every service
/// that gates a feature by tier asks here. A caller's tier comes from its access token's `tier`
/// claim; a tier change makes older tokens stale, so the allowance always follows the tier.
/// `Failure` is the service's own error for "identity cannot be asked and nothing is cached"
/// (its UNAVAILABLE IDENTITY_UNAVAILABLE).
package final class TierCatalog<Failure: Error & Sendable>: Sendable {
    private let client: MembershipClient
    private let maxAge: Duration
    private let unavailable: Failure
    private let cache = Mutex<[String: (tiers: [Membership.Tier], fetchedAt: ContinuousClock.Instant)]>([:])

    package init(client: MembershipClient, maxAge: Duration = .seconds(60), unavailable: Failure) {
        self.client = client
        self.maxAge = maxAge
        self.unavailable = unavailable
    }

    /// The app's tiers, highest rank last; `unavailable` when identity cannot be asked and
    /// nothing is cached (a stale list is used rather than none).
    package func tiers(app: String) async throws(Failure) -> [Membership.Tier] {
        let cached = cache.withLock { $0[app] }
        if let cached, ContinuousClock.now - cached.fetchedAt < maxAge { return cached.tiers }
        do {
            let response = try await client.listTiers(.init(app: app), options: CallOptions(timeout: .seconds(3)))
            let tiers = response.tiers.sorted { $0.rank < $1.rank }
            cache.withLock { $0[app] = (tiers, .now) }
            return tiers
        } catch {
            if let cached { return cached.tiers }
            throw unavailable
        }
    }

    /// What `tier` allows in `app`, and the tier's name as listed: the app's lowest tier for a
    /// name it does not list (a token minted before a tier was renamed), nothing at all when the
    /// app has no tiers.
    package func entitlements(app: String, tier: String) async throws(Failure)
        -> (tier: String, entitlements: Membership.Entitlements) {
        let tiers = try await tiers(app: app)
        if let match = tiers.first(where: { $0.name == tier }) { return (match.name, match.entitlements ?? .init()) }
        if let lowest = tiers.first { return (lowest.name, lowest.entitlements ?? .init()) }
        return (tier, Membership.Entitlements())
    }
}
