import Contracts
import Foundation
import RPC

/// Discovery's workloads, run when `--discovery-port` is given: each stream signs in a fresh
/// anonymous account of `--discovery-app` through identity, then swipes through discovery.
/// discovery_bench.py seeds the app's profiles with the ids `target(_:)` names.
enum DiscoveryWorkloads {
    /// The id of seeded profile `index` (1-based), as discovery_bench.py writes them.
    static func target(_ index: Int) -> String {
        String(format: "00000000-0000-4000-8000-%012x", index)
    }

    static func all(discovery: [RPCClient], app: String) -> [Workload] {
        [swipe(discovery: discovery, app: app), passThenFirstPage(discovery: discovery, app: app),
         likeOption(discovery: discovery, app: app)]
    }

    /// Where discovery_bench.py's seeded profiles centre, and its feed viewer stands.
    static let centre = (latitude: 40.7, longitude: -74.0)

    /// A pass on the top card, then the first page again: a member swiping through their feed.
    /// Each stream is a member of its own near the seeded city's centre, so every page ranks the
    /// nearest window, and every page follows one of the member's own swipes.
    static func passThenFirstPage(discovery: [RPCClient], app: String) -> Workload {
        Workload("feed after a pass") { identity, stream in
            let session = try await identity.signInAnonymously(.init(app: app, deviceName: "bench"))
            let options = CallOptions.bearer(session.accessToken)
            var fields = Profiles.ProfileFields()
            fields.bio = "bench swiper"
            fields.tags = ["t1", "t2"]
            fields.active = true
            // A few hundred metres off the centre, at random: two members on one point would be
            // 0 m apart, which a card shows as no distance.
            fields.location = .init(latitude: centre.latitude + .random(in: -0.005...0.005),
                                    longitude: centre.longitude + .random(in: -0.005...0.005))
            _ = try await ProfilesClient(client: identity.client).updateProfile(
                .init(fields: fields, updateMask: ["bio", "tags", "active", "location"]), options: options)
            let client = DiscoveryClient(client: discovery[stream % discovery.count])
            // The projection follows identity's events: the member's point arrives shortly.
            let deadline = ContinuousClock.now + .seconds(30)
            var cards: [Discovery.Card] = []
            while true {
                cards = try await client.getFeed(.init(pageSize: 20), options: options).cards
                if cards.count == 20, cards.allSatisfy({ $0.distanceMeters > 0 }) { break }
                guard ContinuousClock.now < deadline else { throw BenchSetupError.feedNotReady(cards.count) }
                try await Task.sleep(for: .milliseconds(100))
            }
            return PassChain(client: client, options: options, top: cards[0].accountID)
        }
    }

    /// A like in a group session: the session's row lock, the participant check, the like
    /// (idempotent) and the count of that option's likes. Each stream has a session of its own
    /// (quorum 2, a second device joined) and likes the deck's options in turn, never both
    /// devices on one option, so the session stays open and every like takes the full path.
    static func likeOption(discovery: [RPCClient], app: String) -> Workload {
        Workload("group like option") { identity, stream in
            let creator = try await identity.signInAnonymously(.init(app: app, deviceName: "bench"))
            let guest = try await identity.signInAnonymously(.init(app: app, deviceName: "bench"))
            let sessions = GroupSessionsClient(client: discovery[stream % discovery.count])
            let options = CallOptions.bearer(creator.accessToken)
            let session = try await sessions.createSession(.init(categoryID: "cuisines", quorum: 2), options: options)
            _ = try await sessions.joinSession(.init(inviteCode: session.inviteCode), options: .bearer(guest.accessToken))
            let deck = try await sessions.getDeck(.init(sessionID: session.sessionID), options: options)
            return LikeChain(client: sessions, options: options, sessionID: session.sessionID,
                             optionIDs: deck.options.map(\.optionID))
        }
    }

    /// A like of the next seeded profile: the pair's lock, the visibility check, the day's
    /// counter, the swipe row and the look for a like back, in one transaction.
    static func swipe(discovery: [RPCClient], app: String) -> Workload {
        Workload("swipe (like)") { identity, stream in
            let session = try await identity.signInAnonymously(.init(app: app, deviceName: "bench"))
            let client = DiscoveryClient(client: discovery[stream % discovery.count])
            return SwipeChain(client: client, options: .bearer(session.accessToken))
        }
    }
}

/// One account liking seeded profiles in order, each once.
struct SwipeChain: BenchStream {
    let client: DiscoveryClient
    let options: CallOptions
    var next = 1

    mutating func step() async throws {
        let request = Discovery.SwipeRequest(accountID: DiscoveryWorkloads.target(next), action: .like)
        next += 1
        _ = try await client.swipe(request, options: options)
    }
}

/// One member passing on the top card of their first page, then reading the first page again.
struct PassChain: BenchStream {
    let client: DiscoveryClient
    let options: CallOptions
    var top: String?

    mutating func step() async throws {
        if let top {
            _ = try await client.swipe(.init(accountID: top, action: .pass), options: options)
        }
        let cards = try await client.getFeed(.init(pageSize: 20), options: options).cards
        guard cards.count == 20 else { throw BenchSetupError.feedNotReady(cards.count) }
        top = cards[0].accountID
    }
}

enum BenchSetupError: Error, CustomStringConvertible {
    case feedNotReady(Int)

    var description: String {
        switch self {
        case .feedNotReady(let count): "the feed answered \(count) cards, not 20 near the centre"
        }
    }
}

/// One participant liking a session's options in turn, over and over.
struct LikeChain: BenchStream {
    let client: GroupSessionsClient
    let options: CallOptions
    let sessionID: String
    let optionIDs: [String]
    var next = 0

    mutating func step() async throws {
        let request = Sessions.LikeOptionRequest(sessionID: sessionID, optionID: optionIDs[next % optionIDs.count])
        next += 1
        _ = try await client.likeOption(request, options: options)
    }
}
