package import RPC

/// Typed client stub of `rendezvous.identity.v1.DevicesInternal`, for services inside the
/// deployment: every method takes the calling service's credential in `options`
/// (`CallOptions.service` in the Auth module, `authorization: Service <name>:<secret>`).
package struct DevicesInternalClient: Sendable {
    package typealias Messages = Devices
    package let client: RPCClient

    package init(client: RPCClient) { self.client = client }

    private static func path(_ method: String) -> String { "/\(Messages.internalServiceName)/\(method)" }

    package func listActivePushTokens(_ request: Messages.ListActivePushTokensRequest, options: CallOptions) async throws
        -> Messages.ListActivePushTokensResponse {
        try await client.unary(path: Self.path("ListActivePushTokens"), request: request, options: options).message
    }

    package func markPushTokenInactive(_ request: Messages.MarkPushTokenInactiveRequest, options: CallOptions) async throws
        -> Messages.MarkPushTokenInactiveResponse {
        try await client.unary(path: Self.path("MarkPushTokenInactive"), request: request, options: options).message
    }
}
