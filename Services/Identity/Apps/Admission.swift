import Contracts

/// What an account its app has not admitted yet (`AppPolicy.membersOnlyUntilAdmitted`:
/// waitlisted, rejected) may still call on identity. Everything else is PERMISSION_DENIED
/// NOT_ADMITTED (`AuthInterceptor`).
enum Admission {
    static let openMethods: Set<String> = neededToGetAdmitted.union(checkedByTheirOwnRule)

    /// What it needs to get admitted: its account and sessions (sign out, link a sign-in method,
    /// delete the account), its own profile (which the committee reviews), its place on the
    /// waitlist, a member's referral code, what it would get, a purchase the App Store already
    /// charged it for (recorded, not lost), and its devices (so it hears of the committee's
    /// decision).
    static let neededToGetAdmitted: Set<String> = Set(
        ["SignOut", "ListSessions", "GetAccount", "LinkProvider", "LinkEmail", "LinkPhone", "DeleteAccount"]
            .map { "/\(IdentityClient.serviceName)/\($0)" }
        + ["GetMyProfile", "UpdateProfile", "CheckUsername"].map { "/\(ProfilesClient.serviceName)/\($0)" }
        + ["GetMyEntitlements", "RedeemReferralCode", "GetMyWaitlistPosition", "ApplyAppStoreTransaction"]
            .map { "/\(MembershipClient.serviceName)/\($0)" }
        + ["RegisterPushToken", "RefreshPushToken", "UnregisterPushToken", "ListMyPushTokens"]
            .map { "/\(DevicesClient.serviceName)/\($0)" })

    /// Methods whose own rule already refuses an account that is not admitted, with the reason
    /// their contract promises: referral codes are for active members (NOT_ACTIVE_MEMBER), the
    /// committee's and moderators' methods for admins (ADMIN_ONLY, ROLE_REQUIRED; an admin is
    /// an active member), applications for apps that take them (APPLICATIONS_NOT_OFFERED).
    static let checkedByTheirOwnRule: Set<String> = Set(
        ["CreateReferralCode", "ListMyReferralCodes", "ListWaitlist", "ApproveMember", "RejectMember", "SetTier",
         "GetWaitlistCount"].map { "/\(MembershipClient.serviceName)/\($0)" }
        + ["ListProfiles", "SetVerified", "SetRole", "BecomeApplicant"].map { "/\(ProfilesClient.serviceName)/\($0)" }
        + ["ListReports", "ReviewReport", "ResolveReport"].map { "/\(SafetyClient.serviceName)/\($0)" })
}
