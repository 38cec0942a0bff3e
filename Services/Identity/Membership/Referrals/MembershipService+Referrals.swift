import Auth
import Contracts
import Foundation
import Postgres
import RPC

/// CreateReferralCode, ListMyReferralCodes and RedeemReferralCode (apps with member
/// referrals: ÉLITE).
extension MembershipService {
    private var referrals: ReferralStore { ReferralStore(outbox: outbox, revocationList: revocationList) }

    func createReferralCode(_ request: Membership.CreateReferralCodeRequest, context: ServerCallContext) async throws
        -> Membership.ReferralCode {
        let caller = try context.requireAccount()
        let ownerID = try caller.accountUUID()
        try requireMemberReferrals(app: caller.app)
        let expiresAt = try MembershipInput.futureDate(request.expiresAt)
        return try await pool.withTransaction { connection in
            try await referrals.create(ownerID: ownerID, app: caller.app, expiresAt: expiresAt, on: connection)
        }
    }

    func listMyReferralCodes(_ request: Membership.ListMyReferralCodesRequest, context: ServerCallContext) async throws
        -> Membership.ListMyReferralCodesResponse {
        let caller = try context.requireAccount()
        let ownerID = try caller.accountUUID()
        try requireMemberReferrals(app: caller.app)
        return try await pool.withConnection { connection in
            let allowance = try await referrals.allowance(ownerID: ownerID, app: caller.app, on: connection)
            var response = Membership.ListMyReferralCodesResponse()
            response.codes = try await referrals.list(ownerID: ownerID, on: connection)
            response.allowancePerMonth = Int32(clamping: allowance.perMonth)
            response.remainingThisMonth = Int32(clamping: allowance.remaining)
            response.allowanceResetsAt = Timestamp(allowance.resetsAt)
            return response
        }
    }

    func redeemReferralCode(_ request: Membership.RedeemReferralCodeRequest, context: ServerCallContext) async throws
        -> Membership.RedeemReferralCodeResponse {
        let caller = try context.requireAccount()
        let accountID = try caller.accountUUID()
        try requireMemberReferrals(app: caller.app)
        let attempts = ReferralAttempts()
        try await attempts.check(accountID, pool: pool)
        do {
            try await pool.withTransaction { connection in
                try await referrals.redeem(code: request.code, account: accountID, on: connection)
            }
        } catch MembershipError.referralCodeNotFound {
            try await attempts.recordMiss(accountID, pool: pool)
            throw MembershipError.referralCodeNotFound
        }
        return Membership.RedeemReferralCodeResponse(membershipStatus: MembershipStatus.active)
    }

    /// FAILED_PRECONDITION `REFERRALS_NOT_OFFERED` unless the app's policy has member referrals.
    private func requireMemberReferrals(app: String) throws {
        guard try settings.apps.policy(for: app).memberReferrals else { throw MembershipError.referralsNotOffered }
    }
}
