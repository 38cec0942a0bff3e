import Contracts
import Foundation
import GatewayClient
import RPC
import Synchronization
import TestSupport
import Testing

/// Discovery as an app meets it: `GatewayClient` talking to one address, the nginx edge, which
/// routes to the real identity and discovery executables.
@Suite(.serialized) struct EndToEndDiscoveryTests {
    /// Runs `body` against a fresh stack behind the edge, stopping it however `body` ends.
    static func withStack(_ body: (DiscoveryStack) async throws -> Void) async throws {
        let stack = try await DiscoveryStack.start(withEdge: true)
        do {
            try await body(stack)
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    static func client(_ stack: DiscoveryStack, app: String) throws -> GatewayClient {
        let edge = try #require(stack.edge)
        return try GatewayClient(configuration: GatewayConfiguration(host: "127.0.0.1", port: edge.port, security: .plaintext,
                                                                     app: app, deviceName: "e2e"),
                                 tokenStore: InMemoryTokenStore())
    }

    /// Three anonymous devices decide on dinner: create, share the code, join, swipe, and every
    /// one of them learns the winner; a fourth device finds the session full.
    @Test func swivo_threeDevicesToAMatch_throughTheEdge() async throws {
        try await Self.withStack { stack in
            let devices = try (0..<4).map { _ in try Self.client(stack, app: "swivo") }
            defer { devices.forEach { $0.close() } }
            for device in devices { _ = try await device.identity.signInAnonymously() }
            let (host, guests, late) = (devices[0], devices[1...2], devices[3])
            let categories = try await host.groupSessions.categories()
            let cuisines = try #require(categories.first { $0.categoryID == "cuisines" })
            let session = try await host.groupSessions.create(categoryID: cuisines.categoryID, quorum: 3)
            for guest in guests { #expect(try await !guest.groupSessions.join(inviteCode: session.inviteCode).readOnly) }
            do {
                _ = try await late.groupSessions.join(inviteCode: session.inviteCode)
                Issue.record("a fourth device joined a session of three")
            } catch {
                #expect((error as? GatewayError)?.discoveryReason == .sessionFull)
            }
            let watched = Mutex<[Sessions.SessionStatus]>([])
            let watcher = Task {
                for try await update in guests.first!.groupSessions.watch(session.sessionID) {  // guests has two devices
                    watched.withLock { $0.append(update.status) }
                }
            }
            let deck = try await host.groupSessions.deck(session.sessionID)
            let pick = try #require(deck.options.first)
            var last = Sessions.LikeOptionResponse()
            for device in devices.prefix(3) { last = try await device.groupSessions.like(optionID: pick.optionID, in: session.sessionID) }
            #expect(last.matchFound)
            #expect(last.matchedOption?.optionID == pick.optionID)
            // The stream ends with the match; a watcher that never hears of it is stopped.
            let stopper = Task {
                try await Task.sleep(for: .seconds(15))
                watcher.cancel()
            }
            try await watcher.value
            stopper.cancel()
            #expect(watched.withLock { $0.last } == .matched)
            let closed = try await guests.last!.groupSessions.list(.closed)  // guests has two devices
            #expect(closed.sessions.map(\.sessionID).contains(session.sessionID))
        }
    }

    /// Two people like each other through the gateway client: one match, seen by both, and a
    /// typed reason for a swipe on oneself.
    @Test func mutualLike_throughTheEdge_isOneMatch() async throws {
        try await Self.withStack { stack in
            let (ana, ben) = (try Self.client(stack, app: "swivo"), try Self.client(stack, app: "swivo"))
            defer {
                ana.close()
                ben.close()
            }
            let anaAccount = try await ana.identity.signInAnonymously()
            let benAccount = try await ben.identity.signInAnonymously()
            for client in [ana, ben] {
                var fields = Profiles.ProfileFields()
                fields.bio = "hello"
                fields.active = true
                _ = try await client.profiles.updateProfile(fields, mask: ["bio", "active"])
            }
            // Discovery learns of the profiles from identity's events.
            let deadline = ContinuousClock.now + .seconds(15)
            var first: Discovery.SwipeResponse?
            while first == nil, ContinuousClock.now < deadline {
                do {
                    first = try await ana.discovery.swipe(accountID: benAccount.id, .like)
                } catch {
                    guard (error as? GatewayError)?.discoveryReason == .userNotFound else { throw error }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            #expect(first?.match == nil)
            let second = try await ben.discovery.swipe(accountID: anaAccount.id, .like)
            #expect(second.match?.accountID == anaAccount.id)
            #expect(try await ana.discovery.matches().matches.map(\.accountID) == [benAccount.id])
            do {
                _ = try await ana.discovery.swipe(accountID: anaAccount.id, .like)
                Issue.record("swiped on oneself")
            } catch {
                #expect((error as? GatewayError)?.discoveryReason == .cannotSwipeSelf)
            }
        }
    }
}
