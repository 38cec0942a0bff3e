/// A way to sign in; which ones an app allows is its policy's choice.
enum SignInMethod: String, Sendable, Hashable, CaseIterable {
    case apple
    case google
    case email
    case phone
    case anonymous
}

/// What differs between products for Identity, held as data: code asks the policy, it never
/// tests app names (ARCHITECTURE.md, "Apps").
struct AppPolicy: Sendable, Hashable {
    /// The app id tokens carry (`app` and `aud`).
    var id: String
    var signInMethods: Set<SignInMethod>
    /// The role a new account starts with.
    var defaultRole: String
    /// The membership status a new account starts with ("active", or "waitlisted" where the
    /// app is invite-only).
    var initialMembershipStatus: String
    /// Members only until admitted (ÉLITE): an account whose membership status is not
    /// "active" (waitlisted, rejected) may use only what it needs to get admitted, and no other
    /// member sees it. Its tokens say so (`adm` false); every service's `AuthInterceptor`
    /// refuses the rest with NOT_ADMITTED. False: every account of the app is admitted.
    var membersOnlyUntilAdmitted = false
    /// The tier a new account starts with.
    var defaultTier = "free"
    /// Shortest password accepted at sign-up, in characters.
    var minimumPasswordLength = 10
    /// Accepted `aud` of Apple ID tokens: the app's bundle ids (and web Services IDs). Empty
    /// means `com.rendezvous.<id>` (see `audiences(for:)`).
    var appleAudiences: Set<String> = []
    /// Accepted `aud` of Google ID tokens: the app's OAuth client ids. Empty means
    /// `com.rendezvous.<id>`.
    var googleAudiences: Set<String> = []
    /// The App Store bundle id whose signed transactions grant tiers here; nil: none do.
    var appStoreBundleID: String?
    /// App Store product id → the tier it grants.
    var appStoreProducts: [String: String] = [:]
    /// Active members may create referral codes that let waitlisted accounts in (ÉLITE).
    var memberReferrals = false
    /// A public email waitlist without accounts (FirstDate); nil: none.
    var publicWaitlist: PublicWaitlistPolicy?
    /// Every role an account of the app can have (SetRole accepts only these); includes
    /// `Authorization.adminRole`.
    var roles: [String] = ["member", Authorization.adminRole]
    /// The role an account in `defaultRole` takes when it applies (BecomeApplicant); nil where
    /// the app takes no applications.
    var applicantRole: String? = nil
    /// Roles that read every profile of the app, active or not, in full.
    var profileReaderRoles: Set<String> = [Authorization.adminRole]
    /// Youngest age, in whole years, a profile's birth date may give; nil when the app has no
    /// minimum.
    var minimumAge: Int? = nil
    /// Most photo ids a profile holds.
    var maximumProfilePhotos = 9

    func allows(_ method: SignInMethod) -> Bool { signInMethods.contains(method) }

    /// Whether an account with `membershipStatus` is admitted to the app: may use all of it and
    /// be seen by its members.
    func admits(membershipStatus: String) -> Bool {
        !membersOnlyUntilAdmitted || membershipStatus == MembershipStatus.active
    }
}
