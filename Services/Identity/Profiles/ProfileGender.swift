import Contracts

/// A profile's gender as stored (`identity.profiles.gender`); none when not given.
enum ProfileGender: String, Sendable, CaseIterable {
    case female
    case male
    case nonBinary = "non_binary"

    /// nil for GENDER_UNSPECIFIED; INVALID_ARGUMENT `INVALID_GENDER` for a number we do not know.
    static func from(_ gender: Profiles.Gender) throws(ProfileError) -> ProfileGender? {
        switch gender {
        case .unspecified: nil
        case .female: .female
        case .male: .male
        case .nonBinary: .nonBinary
        default: throw .invalidGender
        }
    }

    var message: Profiles.Gender {
        switch self {
        case .female: .female
        case .male: .male
        case .nonBinary: .nonBinary
        }
    }
}
