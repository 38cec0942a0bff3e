/// A push's category (push.proto PushCategory, same numbers): what the user turns on or off,
/// and the `aps.category` the apps register actions for.
enum NotificationCategory: Int16, CaseIterable, Sendable {
    case match = 1
    case message = 2
    case applicationUpdate = 3
    case episodePublished = 4
    case sessionMatched = 5
    case photosRevealed = 6
    case referralUsed = 7
    case encounterStep = 8
    case call = 9

    /// `aps.category`.
    var name: String {
        switch self {
        case .match: "match"
        case .message: "message"
        case .applicationUpdate: "application_update"
        case .episodePublished: "episode_published"
        case .sessionMatched: "session_matched"
        case .photosRevealed: "photos_revealed"
        case .referralUsed: "referral_used"
        case .encounterStep: "encounter_step"
        case .call: "call"
        }
    }

    /// On for a user who never chose: everything personal; an episode going out to every viewer
    /// is opt-in.
    var enabledByDefault: Bool { self != .episodePublished }
}
