import Contracts
import Foundation
import Synchronization

/// Viewers' feed windows as last read, so that a first page (or the next) ranks in memory
/// instead of reading the window again: the window is what a feed costs Postgres.
///
/// A window is served only while it is exactly what reading it again would give:
/// - its `FeedStamp` is unchanged (read on every page; after the page's cards when some are not
///   kept yet, so a change committed before the cards were read shows in the stamp), or the
///   viewer's own swipes are all that changed it, and it is brought up to date without the
///   people swiped (`Window.without(_:stamp:)`: the window is read with a tail for this);
/// - the moment asked for is not before the window's, and everyone listed in the app was
///   listed by the window's moment (so no one listed later is missing);
/// - it is still the UTC day it was read on (age filters and cards' ages turn at midnight).
/// Scores depend on the moment (boosts end, activity ages) and are always computed for the
/// moment asked (`FeedCandidate.score`). Bounded: past `capacity` windows, the least recently
/// used go.
final class FeedWindowCache: Sendable {
    struct Key: Hashable, Sendable {
        var viewer: UUID
        var app: String
        var minAge: Int32?
        var maxAge: Int32?
        var genders: [Int32]?
        var cuisines: [String]?

        init(viewer: UUID, app: String, filters: FeedFilters) {
            self.viewer = viewer
            self.app = app
            minAge = filters.minAge
            maxAge = filters.maxAge
            genders = filters.genders
            cuisines = filters.cuisines
        }
    }

    struct Window: Sendable {
        var stamp: FeedStamp
        /// The moment it was read as of (Unix µs) and the end of that UTC day.
        var asOf: Int64
        var dayEnds: Int64
        var viewer: FeedStore.Viewer
        /// Everyone read, in the window's order (nearest first, or most recently active): the
        /// window's `FeedStore.window` people (`ranked`) and a tail of up to
        /// `FeedStore.windowTail` after them.
        var candidates: [FeedCandidate]
        /// Whether the read found fewer than it asked for: then no one else is left beyond them.
        var complete: Bool
        /// Cards read while the stamp held, by id, before what the candidates add as of a moment
        /// (`FeedStore.cards(_:asOf:base:)`): valid while the stamp holds (a profile change bumps
        /// the app's version) and the day lasts (ages). At most `cardLimit`: the first pages,
        /// the ones asked again and again.
        var cards: [UUID: Discovery.Card] = [:]

        init(stamp: FeedStamp, asOf: Int64, viewer: FeedStore.Viewer, candidates: [FeedCandidate]) {
            self.stamp = stamp
            self.asOf = asOf
            let day: Int64 = 86_400_000_000
            // Floor division (a moment before 1970 still ends its own day).
            dayEnds = (asOf >= 0 ? asOf / day : (asOf - day + 1) / day) * day + day
            self.viewer = viewer
            self.candidates = candidates
            complete = candidates.count < FeedStore.window + FeedStore.windowTail
        }

        /// The people a page ranks: the window's first `FeedStore.window`.
        var ranked: ArraySlice<FeedCandidate> { candidates.prefix(FeedStore.window) }

        /// The window as reading it again would give it once the viewer has swiped `swiped`
        /// (and nothing else changed: `FeedStamp.ownSwipes(until:)` of `stamp`): the same people
        /// without them, with the tail's first moving up in their place. Nil when the tail has
        /// run out, so the nearest after it were never read.
        func without(_ swiped: Set<UUID>, stamp: FeedStamp) -> Window? {
            var next = self
            next.candidates.removeAll { swiped.contains($0.id) }
            guard next.complete || next.candidates.count >= FeedStore.window else { return nil }
            next.stamp = stamp
            for id in swiped { next.cards[id] = nil }
            return next
        }

        /// Whether reading the window as of `moment` would give these people: listed ones all
        /// were by the window's moment, and the day has not turned.
        func holds(asOf moment: Int64) -> Bool {
            moment >= asOf && moment < dayEnds && (viewer.latestListing ?? .min) <= asOf
        }
    }

    private struct Entry {
        var window: Window
        var used: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
    }

    let capacity: Int
    static let cardLimit = 100
    private let state = Mutex(State())

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    /// The window kept for `key` that holds as of `moment` (its stamp still to be checked).
    func window(_ key: Key, asOf moment: Int64) -> Window? {
        state.withLock { state in
            guard var entry = state.entries[key], entry.window.holds(asOf: moment) else { return nil }
            state.clock &+= 1  // wraps only after 2^64 uses
            entry.used = state.clock
            state.entries[key] = entry
            return entry.window
        }
    }

    func keep(_ window: Window, for key: Key) {
        state.withLock { state in
            state.clock &+= 1  // wraps only after 2^64 uses
            state.entries[key] = Entry(window: window, used: state.clock)
            guard state.entries.count > capacity else { return }
            // Least recently used out, an eighth at a time, so the scan is rare.
            let evicted = state.entries.sorted { $0.value.used < $1.value.used }.prefix(max(1, capacity / 8))
            for (key, _) in evicted { state.entries[key] = nil }
        }
    }

    /// Adds `cards` to the window kept for `key`, if it is still the one read with `stamp`.
    func remember(_ cards: [UUID: Discovery.Card], for key: Key, stamp: FeedStamp) {
        state.withLock { state in
            guard var entry = state.entries[key], entry.window.stamp == stamp else { return }
            for (id, card) in cards where entry.window.cards.count < Self.cardLimit {
                entry.window.cards[id] = card
            }
            state.entries[key] = entry
        }
    }

    func forget(_ key: Key) {
        state.withLock { $0.entries[key] = nil }
    }
}
