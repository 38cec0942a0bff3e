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
        [swipe(discovery: discovery, app: app)]
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
