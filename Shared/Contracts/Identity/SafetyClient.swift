package import RPC

/// Typed client stub of `rendezvous.identity.v1.Safety`. Every method needs the access token
/// in `options.metadata` (see `CallOptions.bearer`).
package struct SafetyClient: Sendable {
    package typealias Messages = Safety
    package let client: RPCClient

    package init(client: RPCClient) { self.client = client }

    private static func path(_ method: String) -> String { "/\(Messages.serviceName)/\(method)" }

    package func block(_ request: Messages.BlockRequest, options: CallOptions) async throws -> Messages.BlockedUser {
        try await client.unary(path: Self.path("Block"), request: request, options: options).message
    }

    package func unblock(_ request: Messages.UnblockRequest, options: CallOptions) async throws -> Messages.UnblockResponse {
        try await client.unary(path: Self.path("Unblock"), request: request, options: options).message
    }

    package func listBlocks(_ request: Messages.ListBlocksRequest, options: CallOptions) async throws
        -> Messages.ListBlocksResponse {
        try await client.unary(path: Self.path("ListBlocks"), request: request, options: options).message
    }

    package func report(_ request: Messages.ReportRequest, options: CallOptions) async throws -> Messages.UserReport {
        try await client.unary(path: Self.path("Report"), request: request, options: options).message
    }

    package func listReports(_ request: Messages.ListReportsRequest, options: CallOptions) async throws
        -> Messages.ListReportsResponse {
        try await client.unary(path: Self.path("ListReports"), request: request, options: options).message
    }

    package func reviewReport(_ request: Messages.ReviewReportRequest, options: CallOptions) async throws
        -> Messages.UserReport {
        try await client.unary(path: Self.path("ReviewReport"), request: request, options: options).message
    }

    package func resolveReport(_ request: Messages.ResolveReportRequest, options: CallOptions) async throws
        -> Messages.UserReport {
        try await client.unary(path: Self.path("ResolveReport"), request: request, options: options).message
    }
}
