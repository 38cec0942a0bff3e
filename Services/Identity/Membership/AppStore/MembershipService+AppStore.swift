import Auth
import Contracts
import Foundation
import Postgres
import RPC

/// ApplyAppStoreTransaction: a verified StoreKit 2 transaction grants its product's tier.
extension MembershipService {
    /// Longest signed transaction accepted; Apple's are about 5 KiB.
    static let maximumSignedTransactionBytes = 64 * 1024

    func applyAppStoreTransaction(_ request: Membership.ApplyAppStoreTransactionRequest, context: ServerCallContext) async throws
        -> Membership.ApplyAppStoreTransactionResponse {
        try await applyAppStoreTransaction(request, caller: try context.requireAccount())
    }

    private func applyAppStoreTransaction(_ request: Membership.ApplyAppStoreTransactionRequest,
                                          caller: AuthenticatedAccount) async throws
        -> Membership.ApplyAppStoreTransactionResponse {
        let accountID = try caller.accountUUID()
        let policy = try settings.apps.policy(for: caller.app)
        guard let bundleID = policy.appStoreBundleID else { throw MembershipError.appStoreNotOffered }
        guard let roots = settings.appStoreRootsPEM else { throw MembershipError.appStoreNotConfigured }
        guard request.signedTransaction.utf8.count <= Self.maximumSignedTransactionBytes else {
            throw MembershipError.malformedTransaction
        }
        let now = Date()
        let transaction = try AppStoreVerifier(rootsPEM: roots).verify(request.signedTransaction, now: now)
        guard transaction.bundleID == bundleID else { throw MembershipError.wrongBundleID }
        guard settings.appStoreEnvironments.contains(transaction.environment) else { throw MembershipError.wrongEnvironment }
        guard let tier = policy.appStoreProducts[transaction.productID] else { throw MembershipError.unknownProduct }
        if let token = transaction.appAccountToken, token != accountID {
            throw MembershipError.transactionForAnotherAccount
        }
        if transaction.revokedAt == nil, transaction.expiresAt <= now { throw MembershipError.transactionExpired }

        let applied = try await pool.withTransaction { connection in
            let granted = try await AppStoreLedger.record(transaction, tier: tier, accountID: accountID, app: policy.id,
                                                          outbox: outbox, revocationList: revocationList,
                                                          on: connection)
            return granted ? try await entitlements(accountID: accountID, app: policy.id, on: connection) : nil
        }
        // A revocation commits (the grant is withdrawn), then refuses the transaction.
        guard let applied else { throw MembershipError.transactionRevoked }
        var response = Membership.ApplyAppStoreTransactionResponse()
        response.transactionID = transaction.transactionID
        response.originalTransactionID = transaction.originalTransactionID
        response.productID = transaction.productID
        response.grantedTier = tier
        response.expiresAt = Timestamp(transaction.expiresAt)
        response.entitlements = applied
        return response
    }
}
