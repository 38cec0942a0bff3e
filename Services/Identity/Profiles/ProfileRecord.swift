import Contracts
import Foundation

/// One account's profile as stored: the account's own columns, what the owner wrote, and
/// what the system keeps (verified, activity, times).
struct ProfileRecord: Sendable {
    var accountID: UUID
    var app: String
    var username: String
    var role: String
    var content = ProfileContent()
    var verified = false
    /// Microseconds since the epoch.
    var lastActiveAt: Int64?
    var createdAt: Int64
    var updatedAt: Int64?
    /// Metres from the reading account's location, when both are known.
    var distanceMeters: Double?
    /// The account's membership status (`MembershipStatus`).
    var membershipStatus = MembershipStatus.active

    /// Whether the account's app admits it (`AppPolicy.admits`): one that does not is seen by
    /// no other member.
    func isAdmitted(under policy: AppPolicy) -> Bool { policy.admits(membershipStatus: membershipStatus) }

    /// The name to show: the real name when the owner shows it, else the display name, else
    /// the username.
    var publicName: String {
        let realName = [content.firstName, content.lastName].filter { !$0.isEmpty }.joined(separator: " ")
        if content.showRealName, !realName.isEmpty { return realName }
        return content.displayName.isEmpty ? username : content.displayName
    }

    /// The Profile message as `view` may see it, ages counted on `now`; `admitted` false marks
    /// it `not_admitted` for the owner and profile readers (members never see such a profile).
    func message(as view: ProfileView, admitted: Bool = true, now: Date = Date()) -> Profiles.Profile {
        var profile = Profiles.Profile()
        profile.accountID = accountID.uuidString.lowercased()
        profile.app = app
        profile.username = username
        profile.displayName = content.displayName
        profile.publicName = publicName
        profile.showRealName = content.showRealName
        profile.age = Int32(clamping: max(0, content.birthDate?.age(on: now) ?? 0))
        profile.gender = content.gender?.message ?? .unspecified
        profile.bio = content.bio
        profile.title = content.title
        profile.tags = content.tags
        profile.interests = content.interests
        profile.preferredCuisines = content.preferredCuisines
        profile.neighborhood = content.neighborhood
        profile.active = content.active
        profile.onboardingComplete = content.onboardingComplete
        profile.verified = verified
        profile.photoIDs = content.photoIDs.map { $0.uuidString.lowercased() }
        profile.role = role
        profile.lastActiveAt = lastActiveAt.map(Timestamp.init(microseconds:))
        profile.createdAt = Timestamp(microseconds: createdAt)
        profile.updatedAt = updatedAt.map(Timestamp.init(microseconds:))
        switch view {
        case .owner, .reader:
            profile.firstName = content.firstName
            profile.lastName = content.lastName
            profile.birthDate = content.birthDate?.message
            profile.location = content.location?.message
            if view == .reader { profile.distanceMeters = distanceMeters ?? 0 }
            profile.notAdmitted = !admitted
        case .member:
            if content.showRealName {
                profile.firstName = content.firstName
                profile.lastName = content.lastName
            }
            profile.distanceMeters = MemberDistance.shown(distanceMeters ?? 0)
        }
        return profile
    }
}
