import Foundation

/// One person of a viewer's feed window with what their score is made of, as read when the
/// window was ranked. The score itself is computed for a moment (`score(asOf:priorityTiers:)`),
/// so a window read once ranks exactly as it would be read again at any later moment of the
/// same day while nothing it was read from has changed (`FeedWindowCache`).
struct FeedCandidate: Sendable {
    var id: UUID
    /// Metres from the viewer's point (0 when either has no location).
    var distance: Double
    var tier: String
    /// When they were last active, else when they were listed (Unix µs).
    var activeAt: Int64
    var boostedUntil: Int64?
    /// Their like of the viewer (2: like, 3: super-like) and when it was made (Unix µs).
    var like: (action: Int16, at: Int64)?
    var mutualConnections: Int32
    var sharedTagCount: Int32

    /// Their like of the viewer as of `asOf`: one made later counts only from a new first page.
    func like(asOf: Int64) -> Int16? {
        guard let like, like.at <= asOf else { return nil }
        return like.action
    }

    /// The ranking score as of `asOf` (Unix µs). Integers, so a page token's (score, id) is an
    /// exact position:
    ///   1000 while their boost runs; 400 per mutual connection; 200 for a tier ranked first in
    ///   discovery; 250 when they super-liked the viewer, 150 when they liked; 20 per day of
    ///   activity in the last 14; 100 per shared tag; minus 2 per whole kilometre.
    func score(asOf: Int64, priorityTiers: [String]) -> Int64 {
        var score: Int64 = 0
        if let boostedUntil, boostedUntil > asOf { score += 1000 }
        score += 400 * Int64(mutualConnections)
        // Bytes, as Postgres compares text (Swift's == would equate canonically equivalent names).
        if priorityTiers.contains(where: { $0.utf8.elementsEqual(tier.utf8) }) { score += 200 }
        switch like(asOf: asOf) {
        case 3: score += 250
        case 2: score += 150
        default: break
        }
        // Whole days since they were active, counted from the moment (never negative).
        let days = max(0, asOf - activeAt) / 86_400_000_000
        score += 20 * max(0, 14 - days)
        score += 100 * Int64(sharedTagCount)
        // Double to integer after flooring: the same steps as Postgres's floor(distance / 1000)::int8.
        score -= 2 * Int64((distance / 1000).rounded(.down))
        return score
    }
}
