import Contracts
import Runtime

/// Discovery's view of the shared tier catalog: UNAVAILABLE IDENTITY_UNAVAILABLE when identity
/// cannot be asked.
typealias TierCatalog = Runtime.TierCatalog<DiscoveryError>

extension Runtime.TierCatalog where Failure == DiscoveryError {
    convenience init(client: MembershipClient) {
        self.init(client: client, unavailable: .identityUnavailable)
    }

    /// Names of the app's tiers ranked first in others' feeds (priority_in_discovery).
    func priorityTiers(app: String) async throws(DiscoveryError) -> [String] {
        try await tiers(app: app).filter { $0.entitlements?.priorityInDiscovery == true }.map(\.name)
    }
}
