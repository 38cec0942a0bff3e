import Contracts

/// The Hook / Build / Payoff / CTA template a script is drafted from: the episode, its
/// restaurant, and what the people cast in it said of their dates (seed 000, flywheel 2:
/// reviews seed the script).
struct ScriptTemplate {
    var title: String
    var restaurant: String
    var reviews: [Production.DateReview]

    /// The three vibe tags the reviews name most (ties alphabetically).
    var topTags: [String] {
        var counts: [String: Int] = [:]
        for tag in reviews.flatMap(\.vibeTags) { counts[tag, default: 0] += 1 }
        return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(3).map(\.key)
    }

    func draft(for platform: Production.ScriptPlatform) -> (hook: String, build: String, payoff: String, cta: String) {
        let place = restaurant.isEmpty ? "Miami" : restaurant
        let tags = topTags
        let vibe = tags.first ?? "unexpected"
        let hook: String = switch platform {
        case .tiktok: "POV: your first date at \(place) gets \(vibe)."
        case .instagram: "\(title): a first date that was \(tags.prefix(2).joined(separator: " and ").nonEmpty ?? vibe)."
        default: "We sent two strangers to \(place). It got \(vibe)."
        }
        let build = reviews.isEmpty
            ? "Casting, a consent ritual on camera, and a table for two at \(place)."
            : "Their reviews said it all: \(tags.joined(separator: ", "))."
        let again = reviews.filter(\.wouldMeetAgain).count
        let payoff = reviews.isEmpty ? "Watch how it ends."
            : again == 0 ? "Nobody asked for a second date. Watch why."
            : "\(again) of \(reviews.count) would meet again."
        let cta: String = switch platform {
        case .tiktok: "Follow for part two, and apply for next season in the FirstDate app."
        case .instagram: "Full episode in the FirstDate app. Link in bio."
        default: "Subscribe, and apply to be on FirstDate in the app."
        }
        return (hook, build, payoff, cta)
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
