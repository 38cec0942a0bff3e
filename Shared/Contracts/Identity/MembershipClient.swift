package import RPC
import Wire

/// Typed client stub of `rendezvous.identity.v1.Membership`. Authenticated methods take the
/// access token in `options.metadata` (see `CallOptions.bearer`); ListTiers, JoinWaitlist and
/// GetWaitlistPosition need none.
package struct MembershipClient: Sendable {
    package typealias Messages = Membership
    package let client: RPCClient

    package init(client: RPCClient) { self.client = client }

    private static func path(_ method: String) -> String { "/\(Messages.serviceName)/\(method)" }

    private func call<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: String, _ request: Request, _ options: CallOptions
    ) async throws -> Response {
        try await client.unary(path: Self.path(method), request: request, options: options).message
    }

    package func listTiers(_ request: Messages.ListTiersRequest, options: CallOptions = CallOptions()) async throws -> Messages.ListTiersResponse {
        try await call("ListTiers", request, options)
    }

    package func getMyEntitlements(options: CallOptions) async throws -> Messages.MyEntitlements {
        try await call("GetMyEntitlements", Messages.GetMyEntitlementsRequest(), options)
    }

    package func applyAppStoreTransaction(_ request: Messages.ApplyAppStoreTransactionRequest, options: CallOptions) async throws
        -> Messages.ApplyAppStoreTransactionResponse {
        try await call("ApplyAppStoreTransaction", request, options)
    }

    package func setTier(_ request: Messages.SetTierRequest, options: CallOptions) async throws -> Messages.SetTierResponse {
        try await call("SetTier", request, options)
    }

    package func createReferralCode(_ request: Messages.CreateReferralCodeRequest, options: CallOptions) async throws -> Messages.ReferralCode {
        try await call("CreateReferralCode", request, options)
    }

    package func listMyReferralCodes(options: CallOptions) async throws -> Messages.ListMyReferralCodesResponse {
        try await call("ListMyReferralCodes", Messages.ListMyReferralCodesRequest(), options)
    }

    package func redeemReferralCode(_ request: Messages.RedeemReferralCodeRequest, options: CallOptions) async throws
        -> Messages.RedeemReferralCodeResponse {
        try await call("RedeemReferralCode", request, options)
    }

    package func getMyWaitlistPosition(options: CallOptions) async throws -> Messages.WaitlistPosition {
        try await call("GetMyWaitlistPosition", Messages.GetMyWaitlistPositionRequest(), options)
    }

    package func listWaitlist(_ request: Messages.ListWaitlistRequest, options: CallOptions) async throws -> Messages.ListWaitlistResponse {
        try await call("ListWaitlist", request, options)
    }

    package func approveMember(_ request: Messages.ApproveMemberRequest, options: CallOptions) async throws -> Messages.MembershipDecision {
        try await call("ApproveMember", request, options)
    }

    package func rejectMember(_ request: Messages.RejectMemberRequest, options: CallOptions) async throws -> Messages.MembershipDecision {
        try await call("RejectMember", request, options)
    }

    package func joinWaitlist(_ request: Messages.JoinWaitlistRequest, options: CallOptions = CallOptions()) async throws
        -> Messages.WaitlistEntry {
        try await call("JoinWaitlist", request, options)
    }

    package func getWaitlistPosition(_ request: Messages.GetWaitlistPositionRequest, options: CallOptions = CallOptions()) async throws
        -> Messages.WaitlistEntry {
        try await call("GetWaitlistPosition", request, options)
    }

    package func getWaitlistCount(options: CallOptions) async throws -> Messages.WaitlistCount {
        try await call("GetWaitlistCount", Messages.GetWaitlistCountRequest(), options)
    }
}
