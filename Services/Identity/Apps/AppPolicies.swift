/// The apps Identity serves, by id.
struct AppPolicies: Sendable {
    private let policies: [String: AppPolicy]

    init(_ policies: [AppPolicy]) {
        self.policies = Dictionary(policies.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every app id, for the verifier's accepted audiences.
    var appIDs: Set<String> { Set(policies.keys) }

    /// The app's policy; INVALID_ARGUMENT `UNKNOWN_APP` for an app we do not serve.
    func policy(for app: String) throws(IdentityError) -> AppPolicy {
        guard let policy = policies[app] else { throw .unknownApp }
        return policy
    }

    /// The products of shared/seeds: ÉLITE is invite-only (new members wait for committee
    /// review or redeem a member's referral code, and nobody uses the app before being
    /// admitted) and sells tiers on the App Store, FirstDate
    /// has a public email waitlist and viewers, applicants and hosts, Swivo and The Unseen use
    /// anonymous device accounts that can later be linked to Apple, Google or email. All but
    /// Momento are for adults only; ÉLITE shows 6 photos.
    static let standard = AppPolicies([
        AppPolicy(id: "elite", signInMethods: [.apple, .phone, .email], defaultRole: "member",
                  initialMembershipStatus: "waitlisted", membersOnlyUntilAdmitted: true,
                  appStoreBundleID: "com.elite.dating",
                  appStoreProducts: ["com.elite.dating.plus.monthly": "plus", "com.elite.dating.black.monthly": "black"],
                  memberReferrals: true,
                  minimumAge: 18, maximumProfilePhotos: 6),
        AppPolicy(id: "firstdate", signInMethods: [.apple, .google, .email], defaultRole: "viewer",
                  initialMembershipStatus: "active",
                  publicWaitlist: PublicWaitlistPolicy(placesPerReferral: 5),
                  roles: ["viewer", "applicant", "host", Authorization.adminRole], applicantRole: "applicant",
                  profileReaderRoles: ["host", Authorization.adminRole], minimumAge: 18),
        AppPolicy(id: "swivo", signInMethods: [.anonymous, .apple, .google, .email], defaultRole: "member",
                  initialMembershipStatus: "active",
                  minimumAge: 18),
        AppPolicy(id: "unseen", signInMethods: [.anonymous, .apple, .google, .email], defaultRole: "member",
                  initialMembershipStatus: "active",
                  minimumAge: 18),
        AppPolicy(id: "momento", signInMethods: [.apple, .google, .email, .anonymous], defaultRole: "member",
                  initialMembershipStatus: "active"),
    ])
}
