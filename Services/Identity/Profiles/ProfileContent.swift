import Contracts
import Foundation

/// What an owner writes on its profile (every field of ProfileFields but the username, which
/// lives on the account), cleaned and validated.
struct ProfileContent: Sendable, Equatable {
    var displayName = ""
    var showRealName = false
    var firstName = ""
    var lastName = ""
    var birthDate: BirthDate?
    var gender: ProfileGender?
    var bio = ""
    var title = ""
    var tags: [String] = []
    var interests: [String] = []
    var preferredCuisines: [String] = []
    var neighborhood = ""
    var location: GeoLocation?
    var active = true
    var onboardingComplete = false
    var photoIDs: [UUID] = []
}

/// The bounds of the free-text fields.
extension TextRule {
    static let displayName = TextRule(field: "display_name", maximumLength: 50)
    static let firstName = TextRule(field: "first_name", maximumLength: 50)
    static let lastName = TextRule(field: "last_name", maximumLength: 50)
    static let bio = TextRule(field: "bio", maximumLength: 500, multiline: true, tooLongReason: .bioTooLong)
    static let title = TextRule(field: "title", maximumLength: 100)
    static let neighborhood = TextRule(field: "neighborhood", maximumLength: 100)
}

extension ListRule {
    static let tags = ListRule(item: TextRule(field: "tags", maximumLength: 30), maximumCount: 8,
                               tooManyReason: .tooManyTags)
    static let interests = ListRule(item: TextRule(field: "interests", maximumLength: 40), maximumCount: 20)
    static let preferredCuisines = ListRule(item: TextRule(field: "preferred_cuisines", maximumLength: 40),
                                            maximumCount: 20)
}
