extension AppPolicy {
    /// The audiences an ID token of `provider` must name to sign in to this app: the configured
    /// ones, or `com.rendezvous.<id>` when none are.
    func audiences(for provider: SignInProvider) -> Set<String> {
        let configured = switch provider {
        case .apple: appleAudiences
        case .google: googleAudiences
        }
        return configured.isEmpty ? ["com.rendezvous.\(id)"] : configured
    }
}
