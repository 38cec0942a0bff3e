/// A field of ProfileFields, by its proto name as update_mask spells it.
enum ProfileField: String, Sendable, CaseIterable {
    case username
    case displayName = "display_name"
    case showRealName = "show_real_name"
    case firstName = "first_name"
    case lastName = "last_name"
    case birthDate = "birth_date"
    case gender
    case bio
    case title
    case tags
    case interests
    case preferredCuisines = "preferred_cuisines"
    case neighborhood
    case location
    case active
    case onboardingComplete = "onboarding_complete"
    case photoIDs = "photo_ids"
}
