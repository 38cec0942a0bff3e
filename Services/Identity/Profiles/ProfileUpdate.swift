import Contracts
import Foundation

/// An UpdateProfile request, validated against the app's policy before any database work:
/// the fields it sets and their cleaned values.
struct ProfileUpdate: Sendable {
    let fields: Set<ProfileField>
    /// The new username, when `fields` has it.
    private(set) var username: Username?
    /// New values of the fields in `fields`; the others are unused.
    private var values = ProfileContent()
    private let minimumAge: Int?

    init(_ request: Profiles.UpdateProfileRequest, policy: AppPolicy, now: Date = Date()) throws {
        guard !request.updateMask.isEmpty else { throw ProfileError.updateMaskRequired }
        var fields: Set<ProfileField> = []
        for name in request.updateMask {
            guard let field = ProfileField(rawValue: name.trimmedOfWhitespace) else { throw ProfileError.unknownField(name) }
            fields.insert(field)
        }
        self.fields = fields
        minimumAge = policy.minimumAge
        let given = request.fields ?? Profiles.ProfileFields()
        for field in fields {
            try take(field, from: given, policy: policy, now: now)
        }
    }

    private mutating func take(_ field: ProfileField, from given: Profiles.ProfileFields, policy: AppPolicy,
                               now: Date) throws {
        switch field {
        case .username: username = try Username(given.username)
        case .displayName: values.displayName = try TextRule.displayName.clean(given.displayName)
        case .showRealName: values.showRealName = given.showRealName
        case .firstName: values.firstName = try TextRule.firstName.clean(given.firstName)
        case .lastName: values.lastName = try TextRule.lastName.clean(given.lastName)
        case .birthDate:
            if let date = given.birthDate {
                let birthDate = try BirthDate(date, now: now)
                if let minimumAge = policy.minimumAge, birthDate.age(on: now) < minimumAge {
                    throw ProfileError.underage(minimumAge: minimumAge)
                }
                values.birthDate = birthDate
            }
        case .gender: values.gender = try ProfileGender.from(given.gender)
        case .bio: values.bio = try TextRule.bio.clean(given.bio)
        case .title: values.title = try TextRule.title.clean(given.title)
        case .tags: values.tags = try ListRule.tags.clean(given.tags)
        case .interests: values.interests = try ListRule.interests.clean(given.interests)
        case .preferredCuisines: values.preferredCuisines = try ListRule.preferredCuisines.clean(given.preferredCuisines)
        case .neighborhood: values.neighborhood = try TextRule.neighborhood.clean(given.neighborhood)
        case .location: values.location = try given.location.map { point throws(ProfileError) in try GeoLocation(point) }
        case .active: values.active = given.active
        case .onboardingComplete: values.onboardingComplete = given.onboardingComplete
        case .photoIDs: values.photoIDs = try Self.photoIDs(given.photoIDs, maximum: policy.maximumProfilePhotos)
        }
    }

    /// `content` with this update's fields set. In an app with a minimum age, a profile whose
    /// onboarding is complete must keep a birth date: the age rule means nothing without one.
    func applied(to content: ProfileContent) throws(ProfileError) -> ProfileContent {
        var updated = content
        for field in fields {
            switch field {
            case .username: break
            case .displayName: updated.displayName = values.displayName
            case .showRealName: updated.showRealName = values.showRealName
            case .firstName: updated.firstName = values.firstName
            case .lastName: updated.lastName = values.lastName
            case .birthDate: updated.birthDate = values.birthDate
            case .gender: updated.gender = values.gender
            case .bio: updated.bio = values.bio
            case .title: updated.title = values.title
            case .tags: updated.tags = values.tags
            case .interests: updated.interests = values.interests
            case .preferredCuisines: updated.preferredCuisines = values.preferredCuisines
            case .neighborhood: updated.neighborhood = values.neighborhood
            case .location: updated.location = values.location
            case .active: updated.active = values.active
            case .onboardingComplete: updated.onboardingComplete = values.onboardingComplete
            case .photoIDs: updated.photoIDs = values.photoIDs
            }
        }
        if minimumAge != nil, updated.onboardingComplete, updated.birthDate == nil,
           fields.contains(.birthDate) || fields.contains(.onboardingComplete) {
            throw .birthDateRequired
        }
        return updated
    }

    private static func photoIDs(_ texts: [String], maximum: Int) throws(ProfileError) -> [UUID] {
        guard texts.count <= maximum else { throw .tooManyPhotos(maximum: maximum) }
        var ids: [UUID] = []
        for text in texts {
            guard let id = UUID(uuidString: text.trimmedOfWhitespace), !ids.contains(id) else { throw .invalidPhotoID }
            ids.append(id)
        }
        return ids
    }
}
