import Contracts
import Foundation
import RPC
import TestSupport
import Testing

/// ImportInstagram over the wire: discovery asks a stand-in of Instagram's Graph API
/// (Fixtures/instagram_graph.py, started by the suite) through libcurl, links the member's
/// Instagram account and connects them with members they follow or who follow them.
@Suite(.serialized, .instagramGraph) struct InstagramImportTests {
    /// Ana follows Ben (and two people who are not members) and is followed by Cai; Ben imported
    /// before Ana, Cai after: each import finds the others already linked or listing it, and
    /// every connection is made both ways, source instagram. The lists span several pages.
    /// Importing again adds nothing; a member of another app listing Ana is never connected.
    @Test func import_connectsFollowingsAndFollowers_bothWays_andAgainAddsNothing() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let (ana, ben, cai) = (try await members.join("swivo"), try await members.join("swivo"), try await members.join("swivo"))
        let dan = try await members.join("unseen")
        let tag = TestDatabase.uniqueName("ig")
        try await InstagramGraphStandIn.register([
            "\(tag)-ana": .init(id: "\(tag)-1", username: "ana.ig", following: ["\(tag)-2", "\(tag)-x1", "\(tag)-x2"],
                                followers: ["\(tag)-3", "\(tag)-x3", "\(tag)-x4"]),
            "\(tag)-ben": .init(id: "\(tag)-2", username: "ben.ig"),
            "\(tag)-cai": .init(id: "\(tag)-3", username: "cai.ig", following: ["\(tag)-1"]),
            "\(tag)-dan": .init(id: "\(tag)-4", username: "dan.ig", following: ["\(tag)-1"], followers: ["\(tag)-1"]),
        ])
        let benFirst = try await Self.importInstagram(ben, token: "\(tag)-ben", members)
        #expect(benFirst.instagramUserID == "\(tag)-2")
        #expect(benFirst.matched == 0)
        let anaFirst = try await Self.importInstagram(ana, token: "\(tag)-ana", members)
        #expect(anaFirst.instagramUserID == "\(tag)-1")
        #expect(anaFirst.instagramUsername == "ana.ig")
        #expect(anaFirst.matched == 1 && anaFirst.connectionsAdded == 1, "Ben, whom Ana follows")
        let caiFirst = try await Self.importInstagram(cai, token: "\(tag)-cai", members)
        #expect(caiFirst.matched == 1 && caiFirst.connectionsAdded == 1, "Ana, who follows Cai")
        let danFirst = try await Self.importInstagram(dan, token: "\(tag)-dan", members)
        #expect(danFirst.matched == 0, "Ana is a member of another app")

        let expected: Set<[String]> = [[ana.id, ben.id], [ben.id, ana.id], [ana.id, cai.id], [cai.id, ana.id]]
        #expect(try await Self.instagramConnections(of: [ana, ben, cai, dan], members) == expected)
        let again = try await Self.importInstagram(ana, token: "\(tag)-ana", members)
        #expect(again.matched == 2 && again.connectionsAdded == 0)
        #expect(try await Self.instagramConnections(of: [ana, ben, cai, dan], members) == expected)

        // Eve is one of the accounts Ana follows that had no member yet: her first import finds
        // Ana by Ana's (re-imported) list.
        let eve = try await members.join("swivo")
        try await InstagramGraphStandIn.register(["\(tag)-eve": .init(id: "\(tag)-x1", username: "eve.ig")])
        let eveFirst = try await Self.importInstagram(eve, token: "\(tag)-eve", members)
        #expect(eveFirst.matched == 1 && eveFirst.connectionsAdded == 1, "Ana, who follows Eve")
        #expect(try await Self.instagramConnections(of: [eve], members) == [[eve.id, ana.id]])
        // A second member proving the same Instagram account takes the link over.
        let eveAgain = try await members.join("swivo")
        let moved = try await Self.importInstagram(eveAgain, token: "\(tag)-eve", members)
        #expect(moved.instagramUserID == "\(tag)-x1" && moved.matched == 1)
        let holders = try await members.admin.withConnection { connection in
            try await connection.query("SELECT account_id::text FROM discovery.instagram_links WHERE instagram_id = $1",
                                       [.text("\(tag)-x1")]).map { try $0.decode(0, as: String.self) }
        }
        #expect(holders == [eveAgain.id])
    }

    /// A token Instagram refuses (and an empty one) is INVALID_ARGUMENT INSTAGRAM_TOKEN_INVALID,
    /// and links nothing.
    @Test func refusedOrEmptyToken_isTokenInvalid() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let ana = try await members.join("swivo")
        for token in ["not-a-token-instagram-knows", "  "] {
            let failure = await reason {
                _ = try await members.discovery.importInstagram(.init(accessToken: token), options: ana.bearer)
            }
            #expect(failure?.code == .invalidArgument)
            #expect(failure?.reason == "INSTAGRAM_TOKEN_INVALID")
        }
        let links = try await members.admin.withConnection { connection in
            try await connection.query("SELECT count(*) FROM discovery.instagram_links WHERE account_id = $1::uuid",
                                       [.text(ana.id)])[0].decode(0, as: Int64.self)
        }
        #expect(links == 0)
        let unauthenticated = await reason { _ = try await members.discovery.importInstagram(.init(accessToken: "x")) }
        #expect(unauthenticated?.code == .unauthenticated)
    }

    /// Instagram failing (HTTP 500), slower than the time limit (1 s here, the stand-in takes 3),
    /// or not listening at all: UNAVAILABLE INSTAGRAM_UNAVAILABLE, its cause in the details.
    @Test func instagramFailingSlowOrDown_isUnavailableWithItsCause() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let ana = try await members.join("swivo")
        let tag = TestDatabase.uniqueName("ig")
        try await InstagramGraphStandIn.register(["\(tag)-ana": .init(id: "\(tag)-1", username: "ana.ig")])
        defer { Task { try? await InstagramGraphStandIn.set(mode: "ok") } }
        try await InstagramGraphStandIn.set(mode: "fail")
        #expect(try await Self.unavailableCause { try await Self.importInstagram(ana, token: "\(tag)-ana", members) } == "http_500")
        try await InstagramGraphStandIn.set(mode: "stall")
        let started = ContinuousClock.now
        #expect(try await Self.unavailableCause { try await Self.importInstagram(ana, token: "\(tag)-ana", members) } == "timed_out")
        #expect(ContinuousClock.now - started < .milliseconds(2_500), "cut off at the 1 s limit, not when the stand-in answered")
        try await InstagramGraphStandIn.set(mode: "ok")

        let stack = try DiscoveryHarness.running
        let down = try await stack.startDiscovery(environment: ["RV_INSTAGRAM_GRAPH_URL": "http://127.0.0.1:\(try LocalPort.free())"])
        let client = RPCClient(host: "127.0.0.1", port: down.port)
        defer { client.close() }
        let cause = try await Self.unavailableCause {
            try await DiscoveryClient(client: client).importInstagram(.init(accessToken: "\(tag)-ana"), options: ana.bearer)
        }
        await down.stop()
        #expect(cause == "unreachable")
    }

    @discardableResult
    static func importInstagram(_ member: Member, token: String, _ members: DiscoveryMembers) async throws
        -> Discovery.ImportInstagramResponse {
        try await members.discovery.importInstagram(.init(accessToken: token), options: member.bearer)
    }

    /// The `cause` of the UNAVAILABLE INSTAGRAM_UNAVAILABLE that `call` threw (nil if it threw something else).
    static func unavailableCause(_ call: () async throws -> Any) async throws -> String? {
        do {
            _ = try await call()
            Issue.record("the import succeeded")
        } catch let error as RPCError {
            #expect(error.code == .unavailable)
            #expect(error.reason == "INSTAGRAM_UNAVAILABLE")
            return error.details["cause"]
        }
        return nil
    }

    /// Connections of source instagram (3) among `people`, as [account, other] pairs.
    static func instagramConnections(of people: [Member], _ members: DiscoveryMembers) async throws -> Set<[String]> {
        let rows = try await members.admin.withConnection { connection in
            try await connection.query("""
                SELECT account_id::text, other_id::text FROM discovery.connections
                WHERE source = 3 AND account_id = ANY($1::uuid[])
                """, [.uuidArray(people.compactMap { UUID(uuidString: $0.id) })])
        }
        return Set(try rows.map { [try $0.decode(0, as: String.self), try $0.decode(1, as: String.self)] })
    }
}

/// The stand-in Graph API (Fixtures/instagram_graph.py), one per suite.
enum InstagramGraphStandIn {
    @TaskLocal static var port: Int?

    /// An Instagram account as the stand-in serves it.
    struct Account: Encodable {
        var id: String
        var username: String
        var following: [String] = []
        var followers: [String] = []
    }

    /// Registers accounts by their access token.
    static func register(_ accounts: [String: Account]) async throws {
        _ = try await call("POST", "/accounts", body: try JSONEncoder().encode(accounts))
    }

    static func set(mode: String) async throws {
        _ = try await call("POST", "/mode", body: Data("{\"mode\": \"\(mode)\"}".utf8))
    }

    private static func call(_ method: String, _ path: String, body: Data) async throws -> String {
        guard let port else { throw SubprocessError(message: "this suite needs the .instagramGraph trait") }
        let result = try await Subprocess.run("/usr/bin/curl", ["-sS", "-X", method, "--max-time", "10",
                                                                "-H", "Content-Type: application/json",
                                                                "--data-binary", String(decoding: body, as: UTF8.self),
                                                                "http://127.0.0.1:\(port)\(path)"],
                                              environment: [:], timeout: .seconds(15))
        guard result.exitCode == 0 else { throw SubprocessError(message: "curl: \(result.output)") }
        return result.output
    }
}

struct InstagramGraphTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let script = RepositoryPaths.root.appendingPathComponent("Tests/DiscoveryTests/Fixtures/instagram_graph.py").path
        // Pipes of its own (see Subprocess.Server); it stops when its input closes.
        let server = try await Subprocess.Server.start("/usr/bin/env", ["python3", script], readyPrefix: "listening on ",
                                                       standardError: .nullDevice)
        defer { server.stop() }
        let port = server.port
        let stack = try await DiscoveryStack.start(discoveryEnvironment: [
            "RV_INSTAGRAM_GRAPH_URL": "http://127.0.0.1:\(port)", "RV_INSTAGRAM_TIMEOUT_MS": "1000",
        ])
        do {
            try await DiscoveryHarness.$stack.withValue(stack) {
                try await InstagramGraphStandIn.$port.withValue(port) { try await function() }
            }
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}

extension Trait where Self == InstagramGraphTrait {
    /// identity and discovery, discovery asking the Instagram stand-in (1 s time limit).
    static var instagramGraph: Self { InstagramGraphTrait() }
}
