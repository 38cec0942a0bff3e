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

    static func page(_ window: [FeedCandidate], asOf: Int64, priorityTiers: [String], radiusMeters: Double?,
                     after: FeedToken?, limit: Int) -> [Ranked] {
        var ranked: [Ranked] = []
        ranked.reserveCapacity(window.count)
        for candidate in window {
            if let radiusMeters, !(candidate.distance <= radiusMeters) { continue }
            let score = candidate.score(asOf: asOf, priorityTiers: priorityTiers)
            if let after, !(score < after.score || (score == after.score && precedes(after.id, candidate.id))) { continue }
            ranked.append(Ranked(candidate: candidate, score: score))
        }
        ranked.sort { $0.score != $1.score ? $0.score > $1.score : precedes($0.candidate.id, $1.candidate.id) }
        return Array(ranked.prefix(limit))
    }

    /// Whether `a` sorts before `b` as Postgres sorts uuids (memcmp of the 16 bytes).
    static func precedes(_ a: UUID, _ b: UUID) -> Bool {
        withUnsafeBytes(of: a.uuid) { a in
            withUnsafeBytes(of: b.uuid) { b in a.lexicographicallyPrecedes(b) }
        }
    }
}
