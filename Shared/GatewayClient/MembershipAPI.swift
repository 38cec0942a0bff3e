public import ContractTypes
public import Foundation
public import RPCCore

extension GatewayClient {
    /// Tiers, App Store purchases, referral codes and waitlists (`rendezvous.identity.v1.Membership`).
    public var membership: MembershipAPI { MembershipAPI(runner: runner) }
}

/// The Membership service as an app calls it. `listTiers`, `joinWaitlist` and
/// `getWaitlistPosition` need no session (a paywall or a waitlist page comes before sign-in);
/// the others act as the signed-in account. Methods naming no app use the client's.
///
/// A change to the caller's own tier or membership status shows in `getMyEntitlements` and
/// `identity.getAccount()` at once; the session's access token keeps the old claims until
/// `identity.refreshSession()`.
public struct MembershipAPI: Sendable {
    let runner: CallRunner

    /// Every Membership method the client calls, with its retry and authentication rules: the
    /// one place they are decided.
    enum Methods {
        static let listTiers = GatewayMethod("Membership/ListTiers", .read, .none)
        static let getMyEntitlements = GatewayMethod("Membership/GetMyEntitlements", .read, .session)
        /// The same signed transaction again returns the same result and grants nothing twice.
        static let applyAppStoreTransaction = GatewayMethod("Membership/ApplyAppStoreTransaction", .idempotentWrite, .session)
        /// Sets the account's admin grant to the value given (an upsert).
        static let setTier = GatewayMethod("Membership/SetTier", .idempotentWrite, .session)
        /// Not retried: each attempt makes a new code and spends the monthly allowance.
        static let createReferralCode = GatewayMethod("Membership/CreateReferralCode", .write, .session)
        static let listMyReferralCodes = GatewayMethod("Membership/ListMyReferralCodes", .read, .session)
        /// Not retried: a repeat after the first attempt activated the account fails NOT_WAITLISTED.
        static let redeemReferralCode = GatewayMethod("Membership/RedeemReferralCode", .write, .session)
        static let getMyWaitlistPosition = GatewayMethod("Membership/GetMyWaitlistPosition", .read, .session)
        static let listWaitlist = GatewayMethod("Membership/ListWaitlist", .read, .session)
        /// Not retried: a repeat of a decision that was made fails NOT_WAITLISTED.
        static let approveMember = GatewayMethod("Membership/ApproveMember", .write, .session)
        static let rejectMember = GatewayMethod("Membership/RejectMember", .write, .session)
        /// The same email again returns the same entry (its referral code then ignored).
        static let joinWaitlist = GatewayMethod("Membership/JoinWaitlist", .idempotentWrite, .none)
        static let getWaitlistPosition = GatewayMethod("Membership/GetWaitlistPosition", .read, .none)
        static let getWaitlistCount = GatewayMethod("Membership/GetWaitlistCount", .read, .session)
    }

    private var stub: MembershipClient { MembershipClient(client: runner.transport) }
    private var app: String { runner.configuration.app }

    // MARK: Tiers

    /// The app's tiers, lowest first, with their entitlements; needs no session.
    /// INVALID_ARGUMENT `UNKNOWN_APP` for an app Identity does not serve.
    public func listTiers(app: String? = nil, deadline: Duration? = nil) async throws(GatewayError) -> [Membership.Tier] {
        let request = Membership.ListTiersRequest(app: app ?? self.app)
        return try await runner.run(Methods.listTiers, deadline: deadline) { [stub] options in
            try await stub.listTiers(request, options: options).tiers
        }
    }

    /// The signed-in account's effective tier, its entitlements, and when it ends.
    public func getMyEntitlements(deadline: Duration? = nil) async throws(GatewayError) -> Membership.MyEntitlements {
        try await runner.run(Methods.getMyEntitlements, deadline: deadline) { [stub] options in
            try await stub.getMyEntitlements(options: options)
        }
    }

    /// Applies a StoreKit 2 purchase (`Transaction.jwsRepresentation`): its product's tier is
    /// the caller's until the transaction expires. Applying the same transaction again returns
    /// the same result. Fails with the App Store reasons of membership.proto
    /// (`UNTRUSTED_TRANSACTION`, `TRANSACTION_BOUND_TO_ANOTHER_ACCOUNT`, `TRANSACTION_REVOKED`…).
    public func applyAppStoreTransaction(_ signedTransaction: String, deadline: Duration? = nil) async throws(GatewayError)
        -> Membership.ApplyAppStoreTransactionResponse {
        let request = Membership.ApplyAppStoreTransactionRequest(signedTransaction: signedTransaction)
        return try await runner.run(Methods.applyAppStoreTransaction, deadline: deadline) { [stub] options in
            try await stub.applyAppStoreTransaction(request, options: options)
        }
    }

    /// Sets the admin grant of an account of the app until `expiresAt` (nil: until changed);
    /// the app's default tier removes it. Returns the account's effective tier afterwards.
    /// Admins only (PERMISSION_DENIED `ADMIN_ONLY`); `UNKNOWN_TIER`, `MEMBER_NOT_FOUND`.
    public func setTier(accountID: String, tier: String, expiresAt: Date? = nil,
                        deadline: Duration? = nil) async throws(GatewayError) -> Membership.SetTierResponse {
        let request = Membership.SetTierRequest(accountID: accountID, tier: tier, expiresAt: expiresAt.map(Self.timestamp))
        return try await runner.run(Methods.setTier, deadline: deadline) { [stub] options in
            try await stub.setTier(request, options: options)
        }
    }

    // MARK: Referral codes (apps with member referrals: ÉLITE)

    /// A new referral code of the signed-in active member, expiring at `expiresAt` (nil: never).
    /// Fails FAILED_PRECONDITION `NOT_ACTIVE_MEMBER` or `REFERRALS_NOT_OFFERED`, RESOURCE_EXHAUSTED
    /// `REFERRAL_ALLOWANCE_EXHAUSTED` (details `allowance`, `resets_at`). Sent once: never retried.
    public func createReferralCode(expiresAt: Date? = nil,
                                   deadline: Duration? = nil) async throws(GatewayError) -> Membership.ReferralCode {
        let request = Membership.CreateReferralCodeRequest(expiresAt: expiresAt.map(Self.timestamp))
        return try await runner.run(Methods.createReferralCode, deadline: deadline) { [stub] options in
            try await stub.createReferralCode(request, options: options)
        }
    }

    /// The signed-in member's codes, newest first, with this month's allowance.
    public func listMyReferralCodes(deadline: Duration? = nil) async throws(GatewayError)
        -> Membership.ListMyReferralCodesResponse {
        try await runner.run(Methods.listMyReferralCodes, deadline: deadline) { [stub] options in
            try await stub.listMyReferralCodes(options: options)
        }
    }

    /// Redeems a member's code for the signed-in waitlisted account, which becomes active at
    /// once; returns its new status. Fails with the code's reason (`REFERRAL_CODE_USED`,
    /// `REFERRAL_CODE_EXPIRED`, `REFERRAL_CODE_NOT_FOUND`…) or `NOT_WAITLISTED`. Sent once:
    /// never retried.
    @discardableResult
    public func redeemReferralCode(_ code: String, deadline: Duration? = nil) async throws(GatewayError) -> String {
        let request = Membership.RedeemReferralCodeRequest(code: code)
        return try await runner.run(Methods.redeemReferralCode, deadline: deadline) { [stub] options in
            try await stub.redeemReferralCode(request, options: options).membershipStatus
        }
    }

    // MARK: The waitlist of invite-only apps, and its committee

    /// The signed-in account's place on the app's waitlist (1 is next); FAILED_PRECONDITION
    /// `NOT_WAITLISTED` once it is not on it.
    public func getMyWaitlistPosition(deadline: Duration? = nil) async throws(GatewayError) -> Membership.WaitlistPosition {
        try await runner.run(Methods.getMyWaitlistPosition, deadline: deadline) { [stub] options in
            try await stub.getMyWaitlistPosition(options: options)
        }
    }

    /// One page of the app's waitlisted accounts in waitlist order; pass `nextPageToken` for
    /// the next (empty on the last page). Admins only (PERMISSION_DENIED `ADMIN_ONLY`).
    public func listWaitlist(pageSize: Int32 = 0, pageToken: String = "",
                             deadline: Duration? = nil) async throws(GatewayError) -> Membership.ListWaitlistResponse {
        let request = Membership.ListWaitlistRequest(pageSize: pageSize, pageToken: pageToken)
        return try await runner.run(Methods.listWaitlist, deadline: deadline) { [stub] options in
            try await stub.listWaitlist(request, options: options)
        }
    }

    /// A waitlisted account of the app becomes active. Admins only; FAILED_PRECONDITION
    /// `NOT_WAITLISTED` for an account that is not waiting. Sent once: never retried.
    @discardableResult
    public func approveMember(accountID: String,
                              deadline: Duration? = nil) async throws(GatewayError) -> Membership.MembershipDecision {
        let request = Membership.ApproveMemberRequest(accountID: accountID)
        return try await runner.run(Methods.approveMember, deadline: deadline) { [stub] options in
            try await stub.approveMember(request, options: options)
        }
    }

    /// A waitlisted account of the app is rejected; `reason` (required, at most 500 characters)
    /// is kept for the record. Admins only. Sent once: never retried.
    @discardableResult
    public func rejectMember(accountID: String, reason: String,
                             deadline: Duration? = nil) async throws(GatewayError) -> Membership.MembershipDecision {
        let request = Membership.RejectMemberRequest(accountID: accountID, reason: reason)
        return try await runner.run(Methods.rejectMember, deadline: deadline) { [stub] options in
            try await stub.rejectMember(request, options: options)
        }
    }

    // MARK: Public email waitlist (FirstDate)

    /// Puts `email` on the app's public waitlist, optionally referred by another entry's code;
    /// needs no session. The same email again returns its entry. The entry's own code is what
    /// `getWaitlistPosition` needs, and what the user shares.
    public func joinWaitlist(email: String, referralCode: String = "",
                             deadline: Duration? = nil) async throws(GatewayError) -> Membership.WaitlistEntry {
        let request = Membership.JoinWaitlistRequest(app: app, email: email, referralCode: referralCode)
        return try await runner.run(Methods.joinWaitlist, deadline: deadline) { [stub] options in
            try await stub.joinWaitlist(request, options: options)
        }
    }

    /// An entry's current position, by its email and its own referral code; needs no session.
    /// An unknown email and a wrong code are both NOT_FOUND `WAITLIST_ENTRY_NOT_FOUND`.
    public func getWaitlistPosition(email: String, referralCode: String,
                                    deadline: Duration? = nil) async throws(GatewayError) -> Membership.WaitlistEntry {
        let request = Membership.GetWaitlistPositionRequest(app: app, email: email, referralCode: referralCode)
        return try await runner.run(Methods.getWaitlistPosition, deadline: deadline) { [stub] options in
            try await stub.getWaitlistPosition(request, options: options)
        }
    }

    /// How many entries the app's public waitlist holds. Hosts and admins only
    /// (PERMISSION_DENIED `ROLE_REQUIRED`).
    public func getWaitlistCount(deadline: Duration? = nil) async throws(GatewayError) -> Int64 {
        try await runner.run(Methods.getWaitlistCount, deadline: deadline) { [stub] options in
            try await stub.getWaitlistCount(options: options).count
        }
    }

    /// A protobuf Timestamp of `date`, whole microseconds.
    private static func timestamp(_ date: Date) -> Timestamp {
        Timestamp(microseconds: Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down)))
    }
}
