import Contracts
import Foundation
@testable import Messaging
import Postgres
import RPC
import TestSupport
import Testing

/// The icebreaker generator's endpoint path (seed 000's fd-generate-icebreakers) against a local
/// HTTP server standing in for the LLM: it answers, it fails, it stalls past the 5 s timeout.
/// The match opens with the pool's starters at once; the generator's replace them only when it
/// answers in time.
@Suite(.serialized, .icebreakerEndpoint) struct IcebreakerGeneratorTests {
    static func matchedPair(_ mode: String) async throws -> (MessagingMembers, Member, Member, String) {
        try await IcebreakerEndpoint.set(mode: mode)
        let members = try await MessagingMembers.make()
        let (ana, ben) = (try await members.join(cuisines: ["thai"]), try await members.join(cuisines: ["thai"]))
        try await members.waitUntil("messaging has both tastes") {
            try await members.admin.withConnection { connection in
                try await connection.query("""
                    SELECT count(*)::int8 FROM messaging.member_tastes WHERE account_id = ANY($1::uuid[]) AND cardinality(cuisines) = 1
                    """, [.textArray([ana.id, ben.id])])[0].decode(0, as: Int64.self) == 2
            }
        }
        return (members, ana, ben, try await members.match(ana, ben))
    }

    static func generation(of id: String, _ members: MessagingMembers) async throws -> (state: Int16, failure: String) {
        try await members.admin.withConnection { connection in
            let row = try await connection.query("SELECT generation, failure FROM messaging.icebreakers WHERE conversation_id = $1::uuid",
                                                 [.text(id)])[0]
            return (try row.decode(0), try row.decode(1))
        }
    }

    @Test func anAnsweringEndpoint_replacesThePoolsStarters_once() async throws {
        let (members, ana, ben, id) = try await Self.matchedPair("ok")
        defer { members.close() }
        let opened = try await members.messaging[0].getConversation(.init(conversationID: id), options: ana.bearer)
        #expect(opened.icebreakers.count == 3, "the match opens with starters at once")
        try await members.waitUntil("the generator answered", timeout: .seconds(10)) {
            try await Self.generation(of: id, members).state == 2
        }
        let seen = try await members.messaging[0].getConversation(.init(conversationID: id), options: ben.bearer)
        #expect(seen.icebreakers == ["Generated: first", "Generated: second", "Generated: third"])
        let asked = try await IcebreakerEndpoint.requests().filter { ($0["match_id"] as? String) == id }
        #expect(asked.count == 1, "generated once per match")
        #expect((asked.first?["members"] as? [[String: Any]])?.compactMap { $0["cuisines"] as? [String] } == [["thai"], ["thai"]])
    }

    @Test func aFailingEndpoint_leavesThePoolsStarters() async throws {
        let (members, ana, _, id) = try await Self.matchedPair("fail")
        defer { members.close() }
        try await members.waitUntil("the generator gave up", timeout: .seconds(10)) {
            try await Self.generation(of: id, members).state == 3
        }
        #expect(try await Self.generation(of: id, members).failure.contains("500"))
        let seen = try await members.messaging[0].getConversation(.init(conversationID: id), options: ana.bearer)
        #expect(seen.icebreakers.count == 3 && Set(seen.icebreakers).isSubset(of: Set(IcebreakerPool.byCuisine["thai"] ?? [])))
    }

    @Test func aStallingEndpoint_isCutOffAfterFiveSeconds_andThePoolStays() async throws {
        let (members, ana, _, id) = try await Self.matchedPair("stall")
        defer { members.close() }
        let started = ContinuousClock.now
        try await members.waitUntil("the generator timed out", timeout: .seconds(12)) {
            try await Self.generation(of: id, members).state == 3
        }
        let waited = ContinuousClock.now - started
        #expect(waited < .seconds(7), "cut off at the 5 s timeout, not when the endpoint answered (7 s)")
        #expect(try await Self.generation(of: id, members).failure == "timed out")
        let seen = try await members.messaging[0].getConversation(.init(conversationID: id), options: ana.bearer)
        #expect(Set(seen.icebreakers).isSubset(of: Set(IcebreakerPool.byCuisine["thai"] ?? [])))
    }
}

/// The stand-in endpoint (Fixtures/icebreaker_endpoint.py), one per suite.
enum IcebreakerEndpoint {
    @TaskLocal static var port: Int?

    static func set(mode: String) async throws {
        _ = try await call("POST", "/mode", body: Data("{\"mode\": \"\(mode)\"}".utf8))
    }

    static func requests() async throws -> [[String: Any]] {
        (try JSONSerialization.jsonObject(with: try await call("GET", "/requests")) as? [[String: Any]]) ?? []
    }

    private static func call(_ method: String, _ path: String, body: Data? = nil) async throws -> Data {
        guard let port else { throw SubprocessError(message: "this suite needs the .icebreakerEndpoint trait") }
        let result = try await Subprocess.run("/usr/bin/curl", ["-sS", "-X", method, "--max-time", "10",
                                                                "-H", "Content-Type: application/json",
                                                                "--data-binary", String(decoding: body ?? Data(), as: UTF8.self),
                                                                "http://127.0.0.1:\(port)\(path)"],
                                              environment: [:], timeout: .seconds(15))
        guard result.exitCode == 0 else { throw SubprocessError(message: "curl: \(result.output)") }
        return Data(result.output.utf8)
    }
}

struct IcebreakerEndpointTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let script = RepositoryPaths.root.appendingPathComponent("Tests/MessagingTests/Fixtures/icebreaker_endpoint.py").path
        // Pipes of its own (see Subprocess.Server); it stops when its input closes.
        let endpoint = try await Subprocess.Server.start("/usr/bin/env", ["python3", script], readyPrefix: "listening on ",
                                                         standardError: .nullDevice)
        defer { endpoint.stop() }
        let port = endpoint.port
        let stack = try await DiscoveryStack.start(messagingInstances: 1, messagingEnvironment: [
            "RV_ICEBREAKER_URL": "http://127.0.0.1:\(port)/generate", "RV_ICEBREAKER_KEY": "test-key",
        ])
        do {
            try await MessagingHarness.$stack.withValue(stack) {
                try await IcebreakerEndpoint.$port.withValue(port) { try await function() }
            }
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}

extension Trait where Self == IcebreakerEndpointTrait {
    /// identity, discovery and one messaging instance whose icebreaker generator is the stand-in.
    static var icebreakerEndpoint: Self { IcebreakerEndpointTrait() }
}
