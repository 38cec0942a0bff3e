package import RPC

/// Typed client stub of `rendezvous.identity.v1.Devices`. Every method takes the caller's
/// access token in `options` (`CallOptions.bearer`).
package struct DevicesClient: Sendable {
    package typealias Messages = Devices
    package let client: RPCClient

    package init(client: RPCClient) { self.client = client }

    private static func path(_ method: String) -> String { "/\(Messages.serviceName)/\(method)" }

    package func registerPushToken(_ request: Messages.RegisterPushTokenRequest, options: CallOptions) async throws -> Messages.PushToken {
        try await client.unary(path: Self.path("RegisterPushToken"), request: request, options: options).message
    }

    package func refreshPushToken(_ request: Messages.RefreshPushTokenRequest, options: CallOptions) async throws -> Messages.PushToken {
        try await client.unary(path: Self.path("RefreshPushToken"), request: request, options: options).message
    }

    package func unregisterPushToken(_ request: Messages.UnregisterPushTokenRequest, options: CallOptions) async throws
        -> Messages.UnregisterPushTokenResponse {
        try await client.unary(path: Self.path("UnregisterPushToken"), request: request, options: options).message
    }

    package func listMyPushTokens(options: CallOptions) async throws -> Messages.ListMyPushTokensResponse {
        try await client.unary(path: Self.path("ListMyPushTokens"), request: Messages.ListMyPushTokensRequest(),
                               options: options).message
    }
}
