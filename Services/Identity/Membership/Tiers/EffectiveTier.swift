import Foundation

/// An account's effective tier: the highest-ranked of its unexpired grants, else its app's
/// default (lowest) tier.
struct EffectiveTier: Sendable, Equatable {
    /// The tier's name, e.g. "plus".
    var name: String
    /// When the grants of this tier end; nil for the default tier or a grant without end.
    var expiresAt: Date?
    /// When the effective tier may change by itself: the earliest end of any active grant.
    var staleAt: Date?
}
