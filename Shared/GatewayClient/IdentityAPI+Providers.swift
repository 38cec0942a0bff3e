public import ContractTypes

extension IdentityAPI {
    /// Signs in with an Apple or Google ID token, creating the account on the first sign-in of
    /// that provider account in this app, and saves the session.
    ///
    /// `rawNonce` is the nonce the app generated for this sign-in (see `ProviderNonce`), as
    /// generated. Fails with UNAUTHENTICATED and an `ID_TOKEN_…` reason for a token Identity
    /// refuses (signature, issuer, audience, expiry, nonce), FAILED_PRECONDITION
    /// `PROVIDER_NOT_CONFIGURED` or `SIGN_IN_METHOD_NOT_ALLOWED`, INVALID_ARGUMENT `NONCE_REQUIRED`.
    ///
    /// `referralCode`: a member's code (ÉLITE) redeemed when this call creates the account, which
    /// then starts active; a code that cannot be used fails the call and creates nothing
    /// (`REFERRAL_CODE_USED`, `REFERRAL_CODE_EXPIRED`, `REFERRAL_CODE_NOT_FOUND`, `REFERRALS_NOT_OFFERED`…).
    public func signInWithProvider(_ provider: Identity.IdentityProvider, idToken: String, rawNonce: String,
                                   referralCode: String = "", deviceName: String? = nil,
                                   deadline: Duration? = nil) async throws(GatewayError) -> Identity.Account {
        var request = Identity.SignInWithProviderRequest(app: app, provider: provider, idToken: idToken, rawNonce: rawNonce,
                                                         deviceName: device(deviceName))
        request.referralCode = referralCode
        return try await startSession(Methods.signInWithProvider, deadline) { [stub, request] options in
            try await stub.signInWithProvider(request, options: options)
        }
    }

    /// Adds an Apple or Google identity to the signed-in account (an anonymous one stops being
    /// anonymous; its id and data stay). Fails with ALREADY_EXISTS `PROVIDER_IDENTITY_TAKEN` or
    /// `ALREADY_LINKED`, or an `ID_TOKEN_…` reason; the session is kept through all of them.
    public func linkProvider(_ provider: Identity.IdentityProvider, idToken: String, rawNonce: String,
                             deadline: Duration? = nil) async throws(GatewayError) -> Identity.Account {
        let request = Identity.LinkProviderRequest(provider: provider, idToken: idToken, rawNonce: rawNonce)
        return try await runner.run(Methods.linkProvider, deadline: deadline) { [stub] options in
            try await stub.linkProvider(request, options: options)
        }
    }
}
