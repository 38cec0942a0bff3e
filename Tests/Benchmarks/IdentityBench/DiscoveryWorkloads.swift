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
        [swipe(discovery: discovery, app: app), likeOption(discovery: discovery, app: app)]
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
