import Contracts
import Foundation
import GatewayClient
import GatewayClientHTTP2
import RPC
import TestSupport
import Testing

/// Discovery's version N and N+1 on one database, as a rollout runs them (compose/SCALING.md,
/// "Upgrades without downtime"). The release from before discovery's newest migration
/// (`PreviousRelease`, built by Tests/previous-release.sh) starts on the schema this build
/// migrated and serves an app through the edge, alone and then beside this build: what either
/// writes the other reads, and no feed either keeps outlives a swipe made on the other.
@Suite(.serialized) struct EndToEndUpgradeTests {
    /// An ÉLITE member of the test: their gateway client (through the edge) and account id.
    struct Member {
        let client: GatewayClient
        let id: String

        var bearer: CallOptions {
            get throws { .bearer(try #require(try client.currentSession()).accessToken) }
        }
    }

    /// This build's identity and discovery (which migrates discovery's schema), then discovery's
    /// previous release on that schema: after this build's discovery stopped when `alone`, else
    /// beside it. The edge routes discovery to both (round robin); `body` gets the previous one.
    static func withReleases(alone: Bool,
                             _ body: (DiscoveryStack, _ previous: EndToEndServiceProcess, NginxEdge) async throws -> Void)
        async throws {
        let release = try await PreviousRelease.build("discovery")
        let stack = try await DiscoveryStack.start()
        var previous: EndToEndServiceProcess?
        var edge: NginxEdge?
        do {
            if alone { await stack.discovery.stop() }
            let started = try await stack.startDiscovery(executable: release.executable)
            previous = started
            let edgeStarted = try await NginxEdge.start(upstreams: [
                "/rendezvous.identity.": [stack.identity.port],
                "/rendezvous.discovery.": alone ? [started.port] : [started.port, stack.discovery.port],
            ])
            edge = edgeStarted
            try await body(stack, started, edgeStarted)
        } catch {
            print("discovery at \(release.commit.prefix(12)) log:\n\(previous?.log ?? "")\n\(stack.logs)")
            edge?.stop()
            await previous?.stop()
            await stack.stop()
            throw error
        }
        edge?.stop()
        await previous?.stop()
        await stack.stop()
    }

    /// `count` admitted ÉLITE members signed up through the edge, with active profiles at one
    /// spot of their own, so that each is in the others' feeds.
    static func members(_ count: Int, edge: NginxEdge) async throws -> [Member] {
        let spot = Profiles.GeoPoint(latitude: Double.random(in: -60...60), longitude: Double.random(in: -179...179))
        var members: [Member] = []
        for _ in 0..<count {
            let client = try GatewayClient(configuration: GatewayConfiguration(host: "127.0.0.1", port: edge.port, security: .plaintext,
                                                                               app: "elite", deviceName: "upgrade"),
                                           tokenStore: InMemoryTokenStore())
            let account = try await client.signUpAdmitted("\(TestDatabase.uniqueName("upgrade"))@example.com")
            var fields = Profiles.ProfileFields()
            fields.bio = "hello"
            fields.active = true
            fields.location = spot
            _ = try await client.profiles.updateProfile(fields, mask: ["bio", "active", "location"])
            members.append(Member(client: client, id: account.id))
        }
        return members
    }

    /// The account ids on the first page of `member`'s feed from `discovery` (one instance).
    static func feed(of member: Member, on discovery: DiscoveryClient) async throws -> Set<String> {
        Set(try await discovery.getFeed(.init(pageSize: 50), options: try member.bearer).cards.map(\.accountID))
    }

    /// The previous release, alone on the migrated schema: it starts (a newer schema is no reason
    /// to refuse), follows identity's profiles, and swipes, feeds, quotas and a match work
    /// through the gateway client as they did in its own release.
    @Test func previousRelease_alone_onTheMigratedSchema_servesTheApp() async throws {
        try await Self.withReleases(alone: true) { _, _, edge in
            let members = try await Self.members(2, edge: edge)
            defer { members.forEach { $0.client.close() } }
            let (ana, ben) = (members[0], members[1])
            _ = try await EndToEndAdmissionTests.feed(of: .init(client: ana.client, id: ana.id), until: "ben in ana's feed") {
                $0.contains(ben.id)
            }
            let liked = try await ana.client.discovery.swipe(accountID: ben.id, .like)
            #expect(liked.match == nil && liked.quota?.likesRemaining == 4)
            // The window the feed kept before the swipe no longer holds.
            #expect(!Set(try await ana.client.discovery.feed(pageSize: 50).cards.map(\.accountID)).contains(ben.id))
            _ = try await EndToEndAdmissionTests.feed(of: .init(client: ben.client, id: ben.id), until: "ana in ben's feed") {
                $0.contains(ana.id)
            }
            let back = try await ben.client.discovery.swipe(accountID: ana.id, .like)
            #expect(back.match?.accountID == ana.id)
            #expect(try await ana.client.discovery.matches().matches.map(\.accountID) == [ben.id])
            #expect(try await ana.client.discovery.quota().likesRemaining == 4)
        }
    }

    /// Both releases serving at once: a swipe on either empties the swiper's feed on both (each
    /// keeps feed windows), crossing likes sent to different releases at the same moment make
    /// exactly one match, and the day's allowance is one whichever release spends it.
    @Test func previousAndCurrentRelease_sideBySide_shareEveryWrite() async throws {
        try await Self.withReleases(alone: false) { stack, previous, edge in
            let members = try await Self.members(4, edge: edge)
            let rpc = (previous: RPCClient(host: "127.0.0.1", port: previous.port),
                       current: RPCClient(host: "127.0.0.1", port: stack.discovery.port))
            defer {
                members.forEach { $0.client.close() }
                rpc.previous.close()
                rpc.current.close()
            }
            let releases = [DiscoveryClient(client: rpc.previous), DiscoveryClient(client: rpc.current)]
            let ana = members[0]
            let others = Set(members.dropFirst().map(\.id))
            // Both have followed identity's events and keep ana's feed window.
            for discovery in releases {
                try await EndToEndDiscoveryTests.until("everyone in ana's feed on both releases") {
                    try await Self.feed(of: ana, on: discovery).isSuperset(of: others)
                }
            }
            // A pass on each release, then the feed on the other.
            for (index, target) in [members[1], members[2]].enumerated() {
                let (on, other) = (releases[index], releases[1 - index])
                _ = try await on.swipe(.init(accountID: target.id, action: .pass), options: try ana.bearer)
                #expect(!(try await Self.feed(of: ana, on: other)).contains(target.id),
                        "a pass on release \(index) left the card in the feed of release \(1 - index)")
            }

            // Crossing likes: ana and dan like each other at once, each through another release.
            let dan = members[3]
            async let anaLikes = releases[0].swipe(.init(accountID: dan.id, action: .like), options: try ana.bearer)
            async let danLikes = releases[1].swipe(.init(accountID: ana.id, action: .like), options: try dan.bearer)
            let likes = try await [anaLikes, danLikes]
            #expect(likes.compactMap(\.match).count == 1)
            for (member, other) in [(ana, dan), (dan, ana)] {
                for discovery in releases {
                    let matches = try await discovery.listMatches(.init(), options: try member.bearer).matches
                    #expect(matches.map(\.accountID) == [other.id])
                }
            }
            // Ana's one like, counted by both.
            for discovery in releases {
                #expect(try await discovery.getQuota(.init(), options: try ana.bearer).likesRemaining == 4)
            }
        }
    }
}
