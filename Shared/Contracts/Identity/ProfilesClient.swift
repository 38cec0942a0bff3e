package import RPC

/// Typed client stub of `rendezvous.identity.v1.Profiles`. Every method needs the access
/// token in `options.metadata` (see `CallOptions.bearer`).
package struct ProfilesClient: Sendable {
    package typealias Messages = Profiles
    package let client: RPCClient

    package init(client: RPCClient) { self.client = client }

    private static func path(_ method: String) -> String { "/\(Messages.serviceName)/\(method)" }

    package func getMyProfile(options: CallOptions) async throws -> Messages.Profile {
        try await client.unary(path: Self.path("GetMyProfile"), request: Messages.GetMyProfileRequest(), options: options).message
    }

    package func updateProfile(_ request: Messages.UpdateProfileRequest, options: CallOptions) async throws -> Messages.Profile {
        try await client.unary(path: Self.path("UpdateProfile"), request: request, options: options).message
    }

    package func getProfile(_ request: Messages.GetProfileRequest, options: CallOptions) async throws -> Messages.Profile {
        try await client.unary(path: Self.path("GetProfile"), request: request, options: options).message
    }

    package func getProfileByUsername(_ request: Messages.GetProfileByUsernameRequest, options: CallOptions) async throws
        -> Messages.Profile {
        try await client.unary(path: Self.path("GetProfileByUsername"), request: request, options: options).message
    }

    package func listProfiles(_ request: Messages.ListProfilesRequest, options: CallOptions) async throws
        -> Messages.ListProfilesResponse {
        try await client.unary(path: Self.path("ListProfiles"), request: request, options: options).message
    }

    package func setVerified(_ request: Messages.SetVerifiedRequest, options: CallOptions) async throws -> Messages.Profile {
        try await client.unary(path: Self.path("SetVerified"), request: request, options: options).message
    }

    package func becomeApplicant(options: CallOptions) async throws -> Messages.RoleAssignment {
        try await client.unary(path: Self.path("BecomeApplicant"), request: Messages.BecomeApplicantRequest(),
                               options: options).message
    }

    package func setRole(_ request: Messages.SetRoleRequest, options: CallOptions) async throws -> Messages.RoleAssignment {
        try await client.unary(path: Self.path("SetRole"), request: request, options: options).message
    }
}
