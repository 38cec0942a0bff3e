/// Who a verified ID token says the user is at the provider.
struct ProviderIdentity: Sendable, Hashable {
    var provider: SignInProvider
    /// The token's `sub`: the provider's stable id of the user, unique per provider (and, for
    /// Apple, per developer team).
    var subject: String
    /// The email the provider gave (an Apple private relay address is an email too), normalised
    /// as `EmailAddress`; nil when absent or not a valid address.
    var email: String?
    var emailVerified: Bool
}
