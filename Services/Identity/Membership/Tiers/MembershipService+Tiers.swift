import Auth
import Contracts
import Foundation
import Postgres
import RPC

/// ListTiers, GetMyEntitlements and the admin's SetTier.
extension MembershipService {
    func listTiers(_ request: Membership.ListTiersRequest, context: ServerCallContext) async throws
        -> Membership.ListTiersResponse {
        let policy = try settings.apps.policy(for: request.app)
        let tiers = try await pool.withConnection { connection in
            try await TierCatalog.list(app: policy.id, on: connection)
        }
        return Membership.ListTiersResponse(tiers: tiers)
    }

    func getMyEntitlements(_ request: Membership.GetMyEntitlementsRequest, context: ServerCallContext) async throws
        -> Membership.MyEntitlements {
        let caller = try context.requireAccount()
        let accountID = try caller.accountUUID()
        return try await pool.withConnection { connection in
            guard try await MemberAccounts.exists(accountID, app: caller.app, on: connection) else {
                throw IdentityError.accountNotFound
            }
            return try await entitlements(accountID: accountID, app: caller.app, on: connection)
        }
    }

    func setTier(_ request: Membership.SetTierRequest, context: ServerCallContext) async throws
        -> Membership.SetTierResponse {
        try await setTier(request, caller: try context.requireAccount())
    }

    /// The account's effective tier with its entitlements (none for an app whose tiers are not
    /// in `identity.tiers` yet: its accounts are "free" and entitled to nothing).
    func entitlements(accountID: UUID, app: String, on connection: Connection) async throws -> Membership.MyEntitlements {
        let effective = try await TierGrants.effective(accountID: accountID, app: app, on: connection)
        var tier = try await TierCatalog.find(app: app, tier: effective.name, on: connection) ?? Membership.Tier()
        tier.name = effective.name
        return Membership.MyEntitlements(tier: tier, expiresAt: effective.expiresAt.map(Timestamp.init))
    }

    /// Sets (or, with the app's default tier, removes) the admin grant of an account of the
    /// caller's app.
    private func setTier(_ request: Membership.SetTierRequest, caller: AuthenticatedAccount) async throws
        -> Membership.SetTierResponse {
        let adminID = try caller.accountUUID()
        let accountID = try MembershipInput.accountID(request.accountID)
        let expiresAt = try MembershipInput.futureDate(request.expiresAt)
        return try await pool.withTransaction { connection in
            try await Authorization.requireAdmin(caller, on: connection)
            guard try await MemberAccounts.lock(accountID, app: caller.app, on: connection) != nil else {
                throw MembershipError.memberNotFound
            }
            guard try await TierCatalog.find(app: caller.app, tier: request.tier, on: connection) != nil,
                  let defaultTier = try await TierCatalog.defaultTier(app: caller.app, on: connection) else {
                throw MembershipError.unknownTier
            }
            let granted = request.tier == defaultTier.name ? nil : request.tier
            try await TierGrants.set(.admin(by: adminID), accountID: accountID, app: caller.app, tier: granted,
                                     expiresAt: expiresAt, on: connection)
            guard let tier = try await TierGrants.refresh(accountID: accountID, outbox: outbox,
                                                                 revocationList: revocationList, on: connection) else {
                throw MembershipError.memberNotFound
            }
            return Membership.SetTierResponse(accountID: accountID.uuidString.lowercased(), tier: tier.name,
                                              expiresAt: tier.expiresAt.map(Timestamp.init))
        }
    }
}
