import Foundation

/// A feed page from a window (`FeedCandidate`s): scores as of the feed's moment, ordered by
/// score descending, then id (as Postgres orders uuids: byte by byte), after the page token's
/// position; for a viewer with a point, only those within the radius.
///
/// The radius applies to the window, not inside it: a filter there would turn the index-ordered
/// nearest-first scan into a scan and sort of everyone in range. It compares the distance the
/// window measured (the same sphere distance ST_DWithin measures).
enum FeedRanking {
    struct Ranked: Sendable {
        var candidate: FeedCandidate
        var score: Int64
    }

    static func page(_ window: some Collection<FeedCandidate>, asOf: Int64, priorityTiers: [String], radiusMeters: Double?,
                     after: FeedToken?, limit: Int) -> [Ranked] {
        // The best `limit`, kept in order as the window goes by: a page is a few of hundreds, so
        // this costs a comparison or two for most people, where sorting the window cost a fifth
        // of a feed's CPU.
        var best: [Ranked] = []
        guard limit > 0 else { return best }
        best.reserveCapacity(limit + 1)
        for candidate in window {
            if let radiusMeters, !(candidate.distance <= radiusMeters) { continue }
            let score = candidate.score(asOf: asOf, priorityTiers: priorityTiers)
            if let after, !(score < after.score || (score == after.score && precedes(after.id, candidate.id))) { continue }
            let ranked = Ranked(candidate: candidate, score: score)
            if best.count == limit, let last = best.last, !ranksBefore(ranked, last) { continue }
            // The first of the best that this one ranks before (binary search; ids are unique).
            var low = 0
            var high = best.count
            while low < high {
                let middle = (low + high) / 2
                if ranksBefore(best[middle], ranked) { low = middle + 1 } else { high = middle }
            }
            best.insert(ranked, at: low)
            if best.count > limit { best.removeLast() }
        }
        return best
    }

    /// Score descending, then id.
    private static func ranksBefore(_ a: Ranked, _ b: Ranked) -> Bool {
        a.score != b.score ? a.score > b.score : precedes(a.candidate.id, b.candidate.id)
    }

    /// Whether `a` sorts before `b` as Postgres sorts uuids (memcmp of the 16 bytes).
    static func precedes(_ a: UUID, _ b: UUID) -> Bool {
        withUnsafeBytes(of: a.uuid) { a in
            withUnsafeBytes(of: b.uuid) { b in a.lexicographicallyPrecedes(b) }
        }
    }
}
