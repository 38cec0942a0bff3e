import Contracts
import Runtime

/// Messaging's view of the shared tier catalog: UNAVAILABLE IDENTITY_UNAVAILABLE when identity
/// cannot be asked.
typealias TierCatalog = Runtime.TierCatalog<MessagingError>

extension Runtime.TierCatalog where Failure == MessagingError {
    convenience init(client: MembershipClient) {
        self.init(client: client, unavailable: .identityUnavailable)
    }

    /// Whether a member of `tier` sees read receipts.
    func showsReadReceipts(app: String, tier: String) async throws(MessagingError) -> Bool {
        try await entitlements(app: app, tier: tier).entitlements.readReceipts
    }
}

extension Runtime.TierCatalog where Failure == MessagingError {
    /// Whether a member of `tier` may start video calls, and the tier's name and display name
    /// as listed (for the refusal).
    func videoCalling(app: String, tier: String) async throws(MessagingError)
        -> (allowed: Bool, tier: String, displayName: String) {
        let (name, entitlements) = try await entitlements(app: app, tier: tier)
        let displayName = try await tiers(app: app).first { $0.name == name }?.displayName ?? name
        return (entitlements.videoCalls, name, displayName)
    }
}
