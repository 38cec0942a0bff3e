package import RPC

/// Typed client stub of `rendezvous.identity.v1.Identity`. Authenticated methods take the
/// access token in `options.metadata` (`authorization: Bearer …`); see `CallOptions.bearer`.
package struct IdentityClient: Sendable {
    package typealias Messages = Identity
    package let client: RPCClient

    package init(client: RPCClient) { self.client = client }

    private static func path(_ method: String) -> String { "/\(Messages.serviceName)/\(method)" }

    package func signInAnonymously(_ request: Messages.SignInAnonymouslyRequest, options: CallOptions = CallOptions()) async throws -> Messages.AuthSession {
        try await client.unary(path: Self.path("SignInAnonymously"), request: request, options: options).message
    }

    package func signUpWithEmail(_ request: Messages.SignUpWithEmailRequest, options: CallOptions = CallOptions()) async throws -> Messages.AuthSession {
        try await client.unary(path: Self.path("SignUpWithEmail"), request: request, options: options).message
    }

    package func signInWithEmail(_ request: Messages.SignInWithEmailRequest, options: CallOptions = CallOptions()) async throws -> Messages.AuthSession {
        try await client.unary(path: Self.path("SignInWithEmail"), request: request, options: options).message
    }

    package func refreshSession(_ request: Messages.RefreshSessionRequest, options: CallOptions = CallOptions()) async throws -> Messages.AuthSession {
        try await client.unary(path: Self.path("RefreshSession"), request: request, options: options).message
    }

    package func signOut(_ request: Messages.SignOutRequest, options: CallOptions) async throws -> Messages.SignOutResponse {
        try await client.unary(path: Self.path("SignOut"), request: request, options: options).message
    }

    package func listSessions(options: CallOptions) async throws -> Messages.ListSessionsResponse {
        try await client.unary(path: Self.path("ListSessions"), request: Messages.ListSessionsRequest(), options: options).message
    }

    package func getAccount(options: CallOptions) async throws -> Messages.Account {
        try await client.unary(path: Self.path("GetAccount"), request: Messages.GetAccountRequest(), options: options).message
    }

    package func getSigningKeys(options: CallOptions = CallOptions()) async throws -> Messages.SigningKeySet {
        try await client.unary(path: Self.path("GetSigningKeys"), request: Messages.GetSigningKeysRequest(), options: options).message
    }

    package func signInWithProvider(_ request: Messages.SignInWithProviderRequest, options: CallOptions = CallOptions()) async throws -> Messages.AuthSession {
        try await client.unary(path: Self.path("SignInWithProvider"), request: request, options: options).message
    }

    package func startPhoneSignIn(_ request: Messages.StartPhoneSignInRequest, options: CallOptions = CallOptions()) async throws -> Messages.StartPhoneSignInResponse {
        try await client.unary(path: Self.path("StartPhoneSignIn"), request: request, options: options).message
    }

    package func verifyPhoneCode(_ request: Messages.VerifyPhoneCodeRequest, options: CallOptions = CallOptions()) async throws -> Messages.AuthSession {
        try await client.unary(path: Self.path("VerifyPhoneCode"), request: request, options: options).message
    }

    package func linkProvider(_ request: Messages.LinkProviderRequest, options: CallOptions) async throws -> Messages.Account {
        try await client.unary(path: Self.path("LinkProvider"), request: request, options: options).message
    }

    package func linkEmail(_ request: Messages.LinkEmailRequest, options: CallOptions) async throws -> Messages.Account {
        try await client.unary(path: Self.path("LinkEmail"), request: request, options: options).message
    }

    package func linkPhone(_ request: Messages.LinkPhoneRequest, options: CallOptions) async throws -> Messages.Account {
        try await client.unary(path: Self.path("LinkPhone"), request: request, options: options).message
    }

    package func deleteAccount(options: CallOptions) async throws -> Messages.DeleteAccountResponse {
        try await client.unary(path: Self.path("DeleteAccount"), request: Messages.DeleteAccountRequest(), options: options).message
    }
}

extension CallOptions {
    /// Options carrying `authorization: Bearer <accessToken>`.
    package static func bearer(_ accessToken: String, timeout: Duration? = nil) -> CallOptions {
        var metadata = Metadata()
        metadata.addString("Bearer \(accessToken)", forKey: "authorization")
        return CallOptions(timeout: timeout, metadata: metadata)
    }
}
