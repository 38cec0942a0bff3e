import Contracts
import Foundation
import Postgres

/// Feed pages: ranked in memory from the viewer's window when the one kept still holds
/// (`FeedWindowCache`; one round trip for the check, with the page's cards not kept yet), else
/// from a window read afresh and kept.
struct FeedPages: Sendable {
    struct Query: Sendable {
        var viewer: UUID
        var app: String
        var asOf: Int64
        var filters: FeedFilters
        var priorityTiers: [String]
        var after: FeedToken?
        var limit: Int
    }

    struct Row: Sendable {
        var card: Discovery.Card
        var score: Int64
    }

    let pool: PostgresPool
    let windows: FeedWindowCache

    func page(_ query: Query) async throws -> [Row] {
        let key = FeedWindowCache.Key(viewer: query.viewer, app: query.app, filters: query.filters)
        if let window = windows.window(key, asOf: query.asOf) {
            let ranked = rank(window.candidates, viewer: window.viewer, query)
            let stampRead = FeedStamp.read(viewer: query.viewer, app: query.app)
            let missing = ranked.map(\.candidate.id).filter { window.cards[$0] == nil }
            var base = window.cards
            let stamp: FeedStamp
            if missing.isEmpty {
                stamp = try FeedStamp(try await pool.withConnection { try await $0.query(stampRead.sql, stampRead.params) })
            } else {
                // The stamp after the cards: a change committed before the cards were read shows in it.
                let results = try await pool.withConnection { connection in
                    try await connection.pipeline([FeedStore.cards(missing, asOf: query.asOf, viewerTags: window.viewer.tags),
                                                   stampRead])
                }
                let read = try FeedStore.baseCards(from: results[0])
                base.merge(read) { _, read in read }
                stamp = try FeedStamp(results[1])
                if stamp == window.stamp { windows.remember(read, for: key, stamp: stamp) }
            }
            let cards = FeedStore.cards(ranked, asOf: query.asOf, base: base)
            if stamp == window.stamp, cards.count == ranked.count {
                return zip(cards, ranked).map { Row(card: $0, score: $1.score) }
            }
            windows.forget(key)
        }
        // One snapshot for the stamp, the window and the cards: the stamp then describes exactly
        // what the window was read from.
        return try await pool.withTransaction(isolation: .repeatableRead) { connection in
            let first = try await connection.pipeline([FeedStamp.read(viewer: query.viewer, app: query.app),
                                                       FeedStore.viewer(query.viewer, app: query.app)])
            let stamp = try FeedStamp(first[0])
            let viewer = try FeedStore.Viewer(first[1])
            let candidates = try await FeedStore.window(of: query.viewer, app: query.app, asOf: query.asOf,
                                                        filters: query.filters, viewer: viewer, on: connection)
            let ranked = rank(candidates, viewer: viewer, query)
            let statement = FeedStore.cards(ranked.map(\.candidate.id), asOf: query.asOf, viewerTags: viewer.tags)
            // Every card is there: the window's snapshot.
            let base = try FeedStore.baseCards(from: try await connection.query(statement.sql, statement.params))
            // A window read as of a moment before someone's listing (a page token's) would never hold.
            let window = FeedWindowCache.Window(stamp: stamp, asOf: query.asOf, viewer: viewer, candidates: candidates)
            if window.holds(asOf: query.asOf) {
                windows.keep(window, for: key)
                windows.remember(base, for: key, stamp: stamp)
            }
            return zip(FeedStore.cards(ranked, asOf: query.asOf, base: base), ranked).map { Row(card: $0, score: $1.score) }
        }
    }

    private func rank(_ candidates: [FeedCandidate], viewer: FeedStore.Viewer, _ query: Query) -> [FeedRanking.Ranked] {
        FeedRanking.page(candidates, asOf: query.asOf, priorityTiers: query.priorityTiers,
                         radiusMeters: viewer.location == nil ? nil : query.filters.radiusMeters,
                         after: query.after, limit: query.limit)
    }
}
