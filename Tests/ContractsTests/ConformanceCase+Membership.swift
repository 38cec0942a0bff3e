import Contracts
import Foundation
import Testing

/// Values of rendezvous.identity.v1's Membership service and its events
/// (proto-docs/rendezvous/identity/v1/membership.proto).
extension ConformanceCase {
    static let membership: [ConformanceCase] = tiers + referrals + waitlists + membershipEvents

    private static let package = "rendezvous.identity.v1."
    private static let when = Timestamp(seconds: 1_795_000_000, nanos: 5_000)
    private static let whenJSON = "2026-11-18T11:06:40.000005Z"
    private static let later = Timestamp(seconds: 1_797_592_000)
    private static let laterJSON = "2026-12-18T11:06:40Z"
    private static let accountID = "3f2c9a1e-8d4b-4e6f-9a0b-1c2d3e4f5a6b"
    private static let otherID = "0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e"

    private static let blackEntitlementsJSON = """
        {"likes_per_day": -1, "super_likes_per_day": 3, "see_who_liked_you": "LIKES_VISIBILITY_CLEAR",
         "read_receipts": true, "advanced_filters": true, "incognito": true, "boosts_per_month": 4,
         "referral_codes_per_month": 10, "priority_in_discovery": true}
        """

    private static let blackTier: (Membership.Tier, String) = {
        var entitlements = Membership.Entitlements()
        entitlements.likesPerDay = Membership.Entitlements.unlimited
        entitlements.superLikesPerDay = 3
        entitlements.seeWhoLikedYou = .clear
        entitlements.readReceipts = true
        entitlements.advancedFilters = true
        entitlements.incognito = true
        entitlements.boostsPerMonth = 4
        entitlements.referralCodesPerMonth = 10
        entitlements.priorityInDiscovery = true
        var tier = Membership.Tier()
        tier.name = "black"
        tier.displayName = "ÉLITE BLACK"
        tier.rank = 2
        tier.entitlements = entitlements
        return (tier, #"{"name": "black", "display_name": "ÉLITE BLACK", "rank": 2, "entitlements": \#(blackEntitlementsJSON)}"#)
    }()

    private static var tiers: [ConformanceCase] {
        let (black, blackJSON) = blackTier
        var free = Membership.Tier()
        free.name = "free"
        free.entitlements = Membership.Entitlements()
        free.entitlements?.likesPerDay = 5
        free.entitlements?.seeWhoLikedYou = .blurred
        free.entitlements?.referralCodesPerMonth = 3
        let freeJSON = #"{"name": "free", "entitlements": {"likes_per_day": 5, "see_who_liked_you": "LIKES_VISIBILITY_BLURRED", "referral_codes_per_month": 3}}"#
        var unknownVisibility = Membership.Entitlements()
        unknownVisibility.seeWhoLikedYou = Membership.LikesVisibility(rawValue: 7)

        let mine = Membership.MyEntitlements(tier: black, expiresAt: later)
        let mineJSON = #"{"tier": \#(blackJSON), "expires_at": "\#(laterJSON)"}"#
        var applied = Membership.ApplyAppStoreTransactionResponse()
        applied.transactionID = "2000000123456789"
        applied.originalTransactionID = "2000000000000001"
        applied.productID = "com.elite.dating.black.monthly"
        applied.grantedTier = "black"
        applied.expiresAt = later
        applied.entitlements = mine

        return [
            ConformanceCase("default", Membership.Entitlements(), proto: package + "Entitlements", json: "{}"),
            ConformanceCase("black", black.entitlements ?? .init(), proto: package + "Entitlements", json: blackEntitlementsJSON),
            ConformanceCase("unknownVisibility", unknownVisibility, proto: package + "Entitlements",
                            json: #"{"see_who_liked_you": 7}"#),
            ConformanceCase("default", Membership.Tier(), proto: package + "Tier", json: "{}"),
            ConformanceCase("black", black, proto: package + "Tier", json: blackJSON),
            ConformanceCase("default", Membership.ListTiersRequest(), proto: package + "ListTiersRequest", json: "{}"),
            ConformanceCase("app", Membership.ListTiersRequest(app: "elite"), proto: package + "ListTiersRequest",
                            json: #"{"app": "elite"}"#),
            ConformanceCase("default", Membership.ListTiersResponse(), proto: package + "ListTiersResponse", json: "{}"),
            ConformanceCase("two", Membership.ListTiersResponse(tiers: [free, black]), proto: package + "ListTiersResponse",
                            json: #"{"tiers": [\#(freeJSON), \#(blackJSON)]}"#),
            ConformanceCase("default", Membership.GetMyEntitlementsRequest(), proto: package + "GetMyEntitlementsRequest", json: "{}"),
            ConformanceCase("default", Membership.MyEntitlements(), proto: package + "MyEntitlements", json: "{}"),
            ConformanceCase("full", mine, proto: package + "MyEntitlements", json: mineJSON),
            ConformanceCase("default", Membership.ApplyAppStoreTransactionRequest(),
                            proto: package + "ApplyAppStoreTransactionRequest", json: "{}"),
            ConformanceCase("jws", Membership.ApplyAppStoreTransactionRequest(signedTransaction: "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"),
                            proto: package + "ApplyAppStoreTransactionRequest",
                            json: #"{"signed_transaction": "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"}"#),
            ConformanceCase("default", Membership.ApplyAppStoreTransactionResponse(),
                            proto: package + "ApplyAppStoreTransactionResponse", json: "{}"),
            ConformanceCase("full", applied, proto: package + "ApplyAppStoreTransactionResponse", json: """
                {"transaction_id": "2000000123456789", "original_transaction_id": "2000000000000001",
                 "product_id": "com.elite.dating.black.monthly", "granted_tier": "black",
                 "expires_at": "\(laterJSON)", "entitlements": \(mineJSON)}
                """),
            ConformanceCase("default", Membership.SetTierRequest(), proto: package + "SetTierRequest", json: "{}"),
            ConformanceCase("full", Membership.SetTierRequest(accountID: accountID, tier: "plus", expiresAt: when),
                            proto: package + "SetTierRequest",
                            json: #"{"account_id": "\#(accountID)", "tier": "plus", "expires_at": "\#(whenJSON)"}"#),
            ConformanceCase("default", Membership.SetTierResponse(), proto: package + "SetTierResponse", json: "{}"),
            ConformanceCase("full", Membership.SetTierResponse(accountID: accountID, tier: "black", expiresAt: later),
                            proto: package + "SetTierResponse",
                            json: #"{"account_id": "\#(accountID)", "tier": "black", "expires_at": "\#(laterJSON)"}"#),
        ]
    }

    private static var referrals: [ConformanceCase] {
        var code = Membership.ReferralCode()
        code.code = "EXT7K2"
        code.createdAt = when
        code.expiresAt = later
        code.used = true
        code.usedByAccountID = otherID
        code.usedByUsername = unicodeText
        code.usedAt = Timestamp(seconds: 1_795_000_100)
        let codeJSON = """
            {"code": "EXT7K2", "created_at": "\(whenJSON)", "expires_at": "\(laterJSON)", "used": true,
             "used_by_account_id": "\(otherID)", "used_by_username": \(unicodeJSON), "used_at": "2026-11-18T11:08:20Z"}
            """
        var listed = Membership.ListMyReferralCodesResponse()
        listed.codes = [code, Membership.ReferralCode()]
        listed.allowancePerMonth = 10
        listed.remainingThisMonth = 8
        listed.allowanceResetsAt = later

        return [
            ConformanceCase("default", Membership.CreateReferralCodeRequest(), proto: package + "CreateReferralCodeRequest", json: "{}"),
            ConformanceCase("expiry", Membership.CreateReferralCodeRequest(expiresAt: later),
                            proto: package + "CreateReferralCodeRequest", json: #"{"expires_at": "\#(laterJSON)"}"#),
            ConformanceCase("default", Membership.ReferralCode(), proto: package + "ReferralCode", json: "{}"),
            ConformanceCase("used", code, proto: package + "ReferralCode", json: codeJSON),
            ConformanceCase("default", Membership.ListMyReferralCodesRequest(), proto: package + "ListMyReferralCodesRequest", json: "{}"),
            ConformanceCase("default", Membership.ListMyReferralCodesResponse(), proto: package + "ListMyReferralCodesResponse", json: "{}"),
            ConformanceCase("full", listed, proto: package + "ListMyReferralCodesResponse", json: """
                {"codes": [\(codeJSON), {}], "allowance_per_month": 10, "remaining_this_month": 8,
                 "allowance_resets_at": "\(laterJSON)"}
                """),
            ConformanceCase("default", Membership.RedeemReferralCodeRequest(), proto: package + "RedeemReferralCodeRequest", json: "{}"),
            ConformanceCase("code", Membership.RedeemReferralCodeRequest(code: " ext7k2 "),
                            proto: package + "RedeemReferralCodeRequest", json: #"{"code": " ext7k2 "}"#),
            ConformanceCase("default", Membership.RedeemReferralCodeResponse(), proto: package + "RedeemReferralCodeResponse", json: "{}"),
            ConformanceCase("active", Membership.RedeemReferralCodeResponse(membershipStatus: "active"),
                            proto: package + "RedeemReferralCodeResponse", json: #"{"membership_status": "active"}"#),
        ]
    }

    private static var waitlists: [ConformanceCase] {
        var member = Membership.WaitlistMember()
        member.accountID = accountID
        member.username = "anon-7k3q"
        member.email = "ana@example.com"
        member.position = 12
        member.joinedAt = when
        let memberJSON = """
            {"account_id": "\(accountID)", "username": "anon-7k3q", "email": "ana@example.com", "position": 12,
             "joined_at": "\(whenJSON)"}
            """
        var entry = Membership.WaitlistEntry()
        entry.referralCode = "EXT7K2"
        entry.position = -3
        entry.referrals = 2
        entry.joinedAt = when

        return [
            ConformanceCase("default", Membership.GetMyWaitlistPositionRequest(),
                            proto: package + "GetMyWaitlistPositionRequest", json: "{}"),
            ConformanceCase("default", Membership.WaitlistPosition(), proto: package + "WaitlistPosition", json: "{}"),
            ConformanceCase("full", Membership.WaitlistPosition(position: 2_147_483_647, joinedAt: when),
                            proto: package + "WaitlistPosition",
                            json: #"{"position": 2147483647, "joined_at": "\#(whenJSON)"}"#),
            ConformanceCase("default", Membership.ListWaitlistRequest(), proto: package + "ListWaitlistRequest", json: "{}"),
            ConformanceCase("page", Membership.ListWaitlistRequest(pageSize: 50, pageToken: "MTIzOmFiYw"),
                            proto: package + "ListWaitlistRequest", json: #"{"page_size": 50, "page_token": "MTIzOmFiYw"}"#),
            ConformanceCase("default", Membership.WaitlistMember(), proto: package + "WaitlistMember", json: "{}"),
            ConformanceCase("full", member, proto: package + "WaitlistMember", json: memberJSON),
            ConformanceCase("default", Membership.ListWaitlistResponse(), proto: package + "ListWaitlistResponse", json: "{}"),
            ConformanceCase("page", Membership.ListWaitlistResponse(members: [member, Membership.WaitlistMember()],
                                                                    nextPageToken: "MTIzOmFiYw"),
                            proto: package + "ListWaitlistResponse",
                            json: #"{"members": [\#(memberJSON), {}], "next_page_token": "MTIzOmFiYw"}"#),
            ConformanceCase("default", Membership.ApproveMemberRequest(), proto: package + "ApproveMemberRequest", json: "{}"),
            ConformanceCase("id", Membership.ApproveMemberRequest(accountID: accountID), proto: package + "ApproveMemberRequest",
                            json: #"{"account_id": "\#(accountID)"}"#),
            ConformanceCase("default", Membership.RejectMemberRequest(), proto: package + "RejectMemberRequest", json: "{}"),
            ConformanceCase("full", Membership.RejectMemberRequest(accountID: accountID, reason: unicodeText),
                            proto: package + "RejectMemberRequest",
                            json: #"{"account_id": "\#(accountID)", "reason": \#(unicodeJSON)}"#),
            ConformanceCase("default", Membership.MembershipDecision(), proto: package + "MembershipDecision", json: "{}"),
            ConformanceCase("full", Membership.MembershipDecision(accountID: accountID, membershipStatus: "rejected", decidedAt: when),
                            proto: package + "MembershipDecision",
                            json: #"{"account_id": "\#(accountID)", "membership_status": "rejected", "decided_at": "\#(whenJSON)"}"#),
            ConformanceCase("default", Membership.JoinWaitlistRequest(), proto: package + "JoinWaitlistRequest", json: "{}"),
            ConformanceCase("full", Membership.JoinWaitlistRequest(app: "firstdate", email: "ana@example.com", referralCode: "EXT7K2"),
                            proto: package + "JoinWaitlistRequest",
                            json: #"{"app": "firstdate", "email": "ana@example.com", "referral_code": "EXT7K2"}"#),
            ConformanceCase("default", Membership.GetWaitlistPositionRequest(), proto: package + "GetWaitlistPositionRequest", json: "{}"),
            ConformanceCase("full", Membership.GetWaitlistPositionRequest(app: "firstdate", email: "ana@example.com",
                                                                         referralCode: "EXT7K2"),
                            proto: package + "GetWaitlistPositionRequest",
                            json: #"{"app": "firstdate", "email": "ana@example.com", "referral_code": "EXT7K2"}"#),
            ConformanceCase("default", Membership.WaitlistEntry(), proto: package + "WaitlistEntry", json: "{}"),
            ConformanceCase("negativePosition", entry, proto: package + "WaitlistEntry",
                            json: #"{"referral_code": "EXT7K2", "position": -3, "referrals": 2, "joined_at": "\#(whenJSON)"}"#),
            ConformanceCase("default", Membership.GetWaitlistCountRequest(), proto: package + "GetWaitlistCountRequest", json: "{}"),
            ConformanceCase("default", Membership.WaitlistCount(), proto: package + "WaitlistCount", json: "{}"),
            ConformanceCase("large", Membership.WaitlistCount(count: 9_007_199_254_740_993), proto: package + "WaitlistCount",
                            json: #"{"count": "9007199254740993"}"#),
        ]
    }

    private static var membershipEvents: [ConformanceCase] {
        var used = Membership.ReferralUsed()
        used.code = "EXT7K2"
        used.referrerAccountID = accountID
        used.redeemerAccountID = otherID
        used.usedAt = when
        var approved = Membership.MembershipApproved()
        approved.accountID = otherID
        approved.method = .referral
        approved.approvedByAccountID = accountID
        approved.approvedAt = when
        var committee = Membership.MembershipApproved()
        committee.method = .committee
        var rejected = Membership.MembershipRejected()
        rejected.accountID = otherID
        rejected.reason = unicodeText
        rejected.rejectedByAccountID = accountID
        rejected.rejectedAt = when
        var changed = Membership.TierChanged()
        changed.accountID = accountID
        changed.tier = "free"
        changed.previousTier = "plus"
        changed.expiresAt = later

        return [
            ConformanceCase("default", Membership.ReferralUsed(), proto: package + "ReferralUsed", json: "{}"),
            ConformanceCase("full", used, proto: package + "ReferralUsed", json: """
                {"code": "EXT7K2", "referrer_account_id": "\(accountID)", "redeemer_account_id": "\(otherID)",
                 "used_at": "\(whenJSON)"}
                """),
            ConformanceCase("default", Membership.MembershipApproved(), proto: package + "MembershipApproved", json: "{}"),
            ConformanceCase("referral", approved, proto: package + "MembershipApproved", json: """
                {"account_id": "\(otherID)", "method": "APPROVAL_METHOD_REFERRAL", "approved_by_account_id": "\(accountID)",
                 "approved_at": "\(whenJSON)"}
                """),
            ConformanceCase("committee", committee, proto: package + "MembershipApproved",
                            json: #"{"method": "APPROVAL_METHOD_COMMITTEE"}"#),
            ConformanceCase("default", Membership.MembershipRejected(), proto: package + "MembershipRejected", json: "{}"),
            ConformanceCase("full", rejected, proto: package + "MembershipRejected", json: """
                {"account_id": "\(otherID)", "reason": \(unicodeJSON), "rejected_by_account_id": "\(accountID)",
                 "rejected_at": "\(whenJSON)"}
                """),
            ConformanceCase("default", Membership.TierChanged(), proto: package + "TierChanged", json: "{}"),
            ConformanceCase("full", changed, proto: package + "TierChanged", json: """
                {"account_id": "\(accountID)", "tier": "free", "previous_tier": "plus", "expires_at": "\(laterJSON)"}
                """),
        ]
    }
}
