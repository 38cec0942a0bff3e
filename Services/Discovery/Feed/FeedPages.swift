import Contracts
import Foundation
import Postgres
import Runtime

/// Feed pages: ranked in memory from the viewer's window when the one kept still holds
/// (`FeedWindowCache`; one round trip for the check, shared with other viewers' checks, or with
/// the page's cards not kept yet), or holds once the people the viewer has just swiped are
/// taken out (one more round trip, and the check again); else from a window read afresh and kept.
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
    /// The kept window's stamp check, sent with other viewers' (`BatchedReads`).
    let reads: BatchedReads

    func page(_ query: Query) async throws -> [Row] {
        let key = FeedWindowCache.Key(viewer: query.viewer, app: query.app, filters: query.filters)
        // A window that the viewer's own swipes changed is brought up to date, once.
        for _ in 0..<2 {
            guard let window = windows.window(key, asOf: query.asOf) else { break }
            switch try await page(from: window, key: key, query) {
            case .page(let rows): return rows
            case .updated: continue
            case .stale: windows.forget(key)
            }
            break
        }
        return try await freshPage(key: key, query)
    }

    private enum KeptOutcome {
        case page([Row])
        /// The viewer's own swipes changed the window, and the one without them is kept (its
        /// page needs cards not read yet: a swipe came in between).
        case updated
        case stale
    }

    /// A page from the kept `window`, if its stamp still holds.
    private func page(from window: FeedWindowCache.Window, key: FeedWindowCache.Key, _ query: Query) async throws -> KeptOutcome {
        let ranked = rank(window.ranked, viewer: window.viewer, query)
        let stampRead = FeedStamp.read(viewer: query.viewer, app: query.app)
        let missing = ranked.map(\.candidate.id).filter { window.cards[$0] == nil }
        var base = window.cards
        var read: [UUID: Discovery.Card] = [:]
        let stamp: FeedStamp
        if missing.isEmpty {
            stamp = try FeedStamp(try await reads.query(stampRead))
        } else {
            // The stamp after the cards: a change committed before the cards were read shows in it.
            let results = try await pool.withConnection { connection in
                try await connection.pipeline([FeedStore.cards(missing, asOf: query.asOf, viewerTags: window.viewer.tags),
                                               stampRead])
            }
            read = try FeedStore.baseCards(from: results[0])
            base.merge(read) { _, read in read }
            stamp = try FeedStamp(results[1])
            if stamp == window.stamp { windows.remember(read, for: key, stamp: stamp) }
        }
        let cards = FeedStore.cards(ranked, asOf: query.asOf, base: base)
        if stamp == window.stamp, cards.count == ranked.count {
            return .page(zip(cards, ranked).map { Row(card: $0, score: $1.score) })
        }
        guard let swipes = window.stamp.ownSwipes(until: stamp) else { return .stale }
        // Only the viewer's own swipes: which of the window's people they were, in the snapshot
        // of a stamp that must still say so. With it, the cards of everyone the page can show
        // once they are gone: with `swipes` people out, the page ranks over no more than the
        // window and that many of its tail, and is among that many more of their best.
        let reach = Int(min(swipes, Int64(FeedStore.windowTail)))
        let reachable = rank(window.candidates.prefix(FeedStore.window + reach), viewer: window.viewer, query,
                             limit: query.limit + reach)
        let wanted = reachable.map(\.candidate.id).filter { base[$0] == nil }
        let swipedRead = FeedStamp.read(viewer: query.viewer, app: query.app, swipedAmong: window.candidates.map(\.id))
        let results = try await pool.withConnection { connection in
            try await connection.pipeline((wanted.isEmpty ? [] : [FeedStore.cards(wanted, asOf: query.asOf, viewerTags: window.viewer.tags)])
                                          + [swipedRead])
        }
        let stampRows = results[results.count - 1]
        let latest = try FeedStamp(stampRows)
        guard window.stamp.ownSwipes(until: latest) != nil,
              var next = window.without(try FeedStamp.swiped(stampRows), stamp: latest) else { return .stale }
        if !wanted.isEmpty {
            let more = try FeedStore.baseCards(from: results[0])
            read.merge(more) { _, more in more }
            base.merge(more) { _, more in more }
        }
        // The cards read hold as the window's did (the app's version has not moved), and were
        // read before `latest`: the page is the updated window's as of it.
        for (id, card) in read where next.cards.count < FeedWindowCache.cardLimit { next.cards[id] = card }
        windows.keep(next, for: key)
        let page = rank(next.ranked, viewer: next.viewer, query)
        let pageCards = FeedStore.cards(page, asOf: query.asOf, base: base)
        guard pageCards.count == page.count else { return .updated }
        return .page(zip(pageCards, page).map { Row(card: $0, score: $1.score) })
    }

    /// A page from a window read afresh, which is then kept.
    private func freshPage(key: FeedWindowCache.Key, _ query: Query) async throws -> [Row] {
        // One snapshot for the stamp, the window and the cards: the stamp then describes exactly
        // what the window was read from.
        return try await pool.withTransaction(isolation: .repeatableRead) { connection in
            let first = try await connection.pipeline([FeedStamp.read(viewer: query.viewer, app: query.app),
                                                       FeedStore.viewer(query.viewer, app: query.app)])
            let stamp = try FeedStamp(first[0])
            let viewer = try FeedStore.Viewer(first[1])
            let candidates = try await FeedStore.window(of: query.viewer, app: query.app, asOf: query.asOf,
                                                        filters: query.filters, viewer: viewer, on: connection)
            let ranked = rank(candidates.prefix(FeedStore.window), viewer: viewer, query)
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

    /// The query's page of `candidates`, or its best `limit` when given.
    private func rank(_ candidates: ArraySlice<FeedCandidate>, viewer: FeedStore.Viewer, _ query: Query,
                      limit: Int? = nil) -> [FeedRanking.Ranked] {
        FeedRanking.page(candidates, asOf: query.asOf, priorityTiers: query.priorityTiers,
                         radiusMeters: viewer.location == nil ? nil : query.filters.radiusMeters,
                         after: query.after, limit: limit ?? query.limit)
    }
}
