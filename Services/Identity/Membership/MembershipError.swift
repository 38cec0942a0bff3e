import Contracts
import Foundation
import RPC

/// Membership's domain failures (tiers, App Store, referrals, waitlists) and the one place
/// that decides their gRPC status and reason. membership.proto lists them.
enum MembershipError: Error, Sendable, Equatable, RPCErrorConvertible {
    // Input.
    case invalidAccountID
    case invalidExpiry
    case invalidPageToken
    case invalidReason(maximumLength: Int)
    case invalidReferralCode
    case unknownTier

    // Policy and state.
    case referralsNotOffered
    case notActiveMember
    case notWaitlisted
    case memberNotFound
    case referralCodeNotFound
    case referralCodeUsed
    case referralCodeExpired
    case ownReferralCode
    case referrerNotActive
    case referralAllowanceExhausted(allowance: Int, resetsAt: Date)
    case publicWaitlistNotOffered
    case waitlistEntryNotFound

    // App Store.
    case appStoreNotOffered
    case appStoreNotConfigured
    case malformedTransaction
    case untrustedTransaction
    case wrongBundleID
    case wrongEnvironment
    case unknownProduct
    case transactionExpired
    case transactionRevoked
    case transactionForAnotherAccount
    case transactionBoundToAnotherAccount

    var rpcError: RPCError {
        switch self {
        case .invalidAccountID:
            RPCError(Identity.ErrorReason.invalidAccountID, message: "account_id is not a UUID")
        case .invalidExpiry:
            RPCError(Identity.ErrorReason.invalidExpiry, message: "expires_at must be in the future")
        case .invalidPageToken:
            RPCError(Identity.ErrorReason.invalidPageToken, message: "page_token is not one this service returned")
        case .invalidReason(let maximumLength):
            RPCError(Identity.ErrorReason.invalidReason, message: "give a reason of 1 to \(maximumLength) characters", details: ["maximum_length": String(maximumLength)])
        case .invalidReferralCode:
            RPCError(Identity.ErrorReason.invalidReferralCode, message: "a referral code has 6 letters and digits")
        case .unknownTier:
            RPCError(Identity.ErrorReason.unknownTier, message: "this app has no such tier")
        case .referralsNotOffered:
            RPCError(Identity.ErrorReason.referralsNotOffered, message: "this app has no member referral codes")
        case .notActiveMember:
            RPCError(Identity.ErrorReason.notActiveMember, message: "only active members can invite")
        case .notWaitlisted:
            RPCError(Identity.ErrorReason.notWaitlisted, message: "the account is not on the waitlist")
        case .memberNotFound:
            RPCError(Identity.ErrorReason.memberNotFound, message: "no such account in this app")
        case .referralCodeNotFound:
            RPCError(Identity.ErrorReason.referralCodeNotFound, message: "no such referral code")
        case .referralCodeUsed:
            RPCError(Identity.ErrorReason.referralCodeUsed, message: "this referral code has already been used")
        case .referralCodeExpired:
            RPCError(Identity.ErrorReason.referralCodeExpired, message: "this referral code has expired")
        case .ownReferralCode:
            RPCError(Identity.ErrorReason.ownReferralCode, message: "you cannot redeem your own referral code")
        case .referrerNotActive:
            RPCError(Identity.ErrorReason.referrerNotActive, message: "this referral code is no longer valid")
        case .referralAllowanceExhausted(let allowance, let resetsAt):
            RPCError(Identity.ErrorReason.referralAllowanceExhausted, message: "you have used this month's \(allowance) referral codes",
                     details: ["allowance": String(allowance),
                               "resets_at": String(Int64(resetsAt.timeIntervalSince1970))])
        case .publicWaitlistNotOffered:
            RPCError(Identity.ErrorReason.publicWaitlistNotOffered, message: "this app has no public waitlist")
        case .waitlistEntryNotFound:
            RPCError(Identity.ErrorReason.waitlistEntryNotFound, message: "no waitlist entry with this email and code")
        case .appStoreNotOffered:
            RPCError(Identity.ErrorReason.appStoreNotOffered, message: "this app sells nothing on the App Store")
        case .appStoreNotConfigured:
            RPCError(Identity.ErrorReason.appStoreNotConfigured, message: "App Store purchases cannot be checked right now")
        case .malformedTransaction:
            RPCError(Identity.ErrorReason.malformedTransaction, message: "that is not an App Store signed transaction")
        case .untrustedTransaction:
            RPCError(Identity.ErrorReason.untrustedTransaction, message: "the transaction is not signed by the App Store")
        case .wrongBundleID:
            RPCError(Identity.ErrorReason.wrongBundleID, message: "the transaction is for another app")
        case .wrongEnvironment:
            RPCError(Identity.ErrorReason.wrongEnvironment, message: "transactions from this App Store environment are not accepted")
        case .unknownProduct:
            RPCError(Identity.ErrorReason.unknownProduct, message: "the product grants no tier")
        case .transactionExpired:
            RPCError(Identity.ErrorReason.transactionExpired, message: "the subscription period has ended")
        case .transactionRevoked:
            RPCError(Identity.ErrorReason.transactionRevoked, message: "the purchase was refunded or revoked")
        case .transactionForAnotherAccount:
            RPCError(Identity.ErrorReason.transactionForAnotherAccount, message: "the purchase was made for another account")
        case .transactionBoundToAnotherAccount:
            RPCError(Identity.ErrorReason.transactionBoundToAnotherAccount, message: "the subscription belongs to another account")
        }
    }
}
