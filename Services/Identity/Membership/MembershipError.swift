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
            RPCError(code: .invalidArgument, message: "account_id is not a UUID", reason: "INVALID_ACCOUNT_ID")
        case .invalidExpiry:
            RPCError(code: .invalidArgument, message: "expires_at must be in the future", reason: "INVALID_EXPIRY")
        case .invalidPageToken:
            RPCError(code: .invalidArgument, message: "page_token is not one this service returned", reason: "INVALID_PAGE_TOKEN")
        case .invalidReason(let maximumLength):
            RPCError(code: .invalidArgument, message: "give a reason of 1 to \(maximumLength) characters",
                     reason: "INVALID_REASON", details: ["maximum_length": String(maximumLength)])
        case .invalidReferralCode:
            RPCError(code: .invalidArgument, message: "a referral code has 6 letters and digits", reason: "INVALID_REFERRAL_CODE")
        case .unknownTier:
            RPCError(code: .invalidArgument, message: "this app has no such tier", reason: "UNKNOWN_TIER")
        case .referralsNotOffered:
            RPCError(code: .failedPrecondition, message: "this app has no member referral codes", reason: "REFERRALS_NOT_OFFERED")
        case .notActiveMember:
            RPCError(code: .failedPrecondition, message: "only active members can invite", reason: "NOT_ACTIVE_MEMBER")
        case .notWaitlisted:
            RPCError(code: .failedPrecondition, message: "the account is not on the waitlist", reason: "NOT_WAITLISTED")
        case .memberNotFound:
            RPCError(code: .notFound, message: "no such account in this app", reason: "MEMBER_NOT_FOUND")
        case .referralCodeNotFound:
            RPCError(code: .notFound, message: "no such referral code", reason: "REFERRAL_CODE_NOT_FOUND")
        case .referralCodeUsed:
            RPCError(code: .failedPrecondition, message: "this referral code has already been used", reason: "REFERRAL_CODE_USED")
        case .referralCodeExpired:
            RPCError(code: .failedPrecondition, message: "this referral code has expired", reason: "REFERRAL_CODE_EXPIRED")
        case .ownReferralCode:
            RPCError(code: .failedPrecondition, message: "you cannot redeem your own referral code", reason: "OWN_REFERRAL_CODE")
        case .referrerNotActive:
            RPCError(code: .failedPrecondition, message: "this referral code is no longer valid", reason: "REFERRER_NOT_ACTIVE")
        case .referralAllowanceExhausted(let allowance, let resetsAt):
            RPCError(code: .resourceExhausted, message: "you have used this month's \(allowance) referral codes",
                     reason: "REFERRAL_ALLOWANCE_EXHAUSTED",
                     details: ["allowance": String(allowance),
                               "resets_at": String(Int64(resetsAt.timeIntervalSince1970))])
        case .publicWaitlistNotOffered:
            RPCError(code: .failedPrecondition, message: "this app has no public waitlist", reason: "PUBLIC_WAITLIST_NOT_OFFERED")
        case .waitlistEntryNotFound:
            RPCError(code: .notFound, message: "no waitlist entry with this email and code", reason: "WAITLIST_ENTRY_NOT_FOUND")
        case .appStoreNotOffered:
            RPCError(code: .failedPrecondition, message: "this app sells nothing on the App Store", reason: "APP_STORE_NOT_OFFERED")
        case .appStoreNotConfigured:
            RPCError(code: .failedPrecondition, message: "App Store purchases cannot be checked right now",
                     reason: "APP_STORE_NOT_CONFIGURED")
        case .malformedTransaction:
            RPCError(code: .invalidArgument, message: "that is not an App Store signed transaction", reason: "MALFORMED_TRANSACTION")
        case .untrustedTransaction:
            RPCError(code: .invalidArgument, message: "the transaction is not signed by the App Store", reason: "UNTRUSTED_TRANSACTION")
        case .wrongBundleID:
            RPCError(code: .invalidArgument, message: "the transaction is for another app", reason: "WRONG_BUNDLE_ID")
        case .wrongEnvironment:
            RPCError(code: .failedPrecondition, message: "transactions from this App Store environment are not accepted",
                     reason: "WRONG_ENVIRONMENT")
        case .unknownProduct:
            RPCError(code: .invalidArgument, message: "the product grants no tier", reason: "UNKNOWN_PRODUCT")
        case .transactionExpired:
            RPCError(code: .failedPrecondition, message: "the subscription period has ended", reason: "TRANSACTION_EXPIRED")
        case .transactionRevoked:
            RPCError(code: .failedPrecondition, message: "the purchase was refunded or revoked", reason: "TRANSACTION_REVOKED")
        case .transactionForAnotherAccount:
            RPCError(code: .permissionDenied, message: "the purchase was made for another account",
                     reason: "TRANSACTION_FOR_ANOTHER_ACCOUNT")
        case .transactionBoundToAnotherAccount:
            RPCError(code: .permissionDenied, message: "the subscription belongs to another account",
                     reason: "TRANSACTION_BOUND_TO_ANOTHER_ACCOUNT")
        }
    }
}
