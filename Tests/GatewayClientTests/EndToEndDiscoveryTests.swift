import Contracts
import Foundation
import GatewayClient
import GatewayClientHTTP2
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

    static func client(_ stack: DiscoveryStack, app: String, retryPolicy: RetryPolicy = RetryPolicy()) throws -> GatewayClient {
        let edge = try #require(stack.edge)
        return try GatewayClient(configuration: GatewayConfiguration(host: "127.0.0.1", port: edge.port, security: .plaintext,
                                                                     app: app, deviceName: "e2e", retryPolicy: retryPolicy),
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

    /// A watch through the gateway survives discovery going away twice. After the first restart
    /// the reopened stream starts with the state the watcher already has, which is not repeated;
    /// the match then happens while the watcher's instance is down (the third participant likes
    /// through a second instance), and arrives once the instance is back: exactly the states
    /// OPEN, MATCHED, each once.
    @Test func swivo_watch_resumesAcrossDiscoveryRestarts_seeingTheMatchOnce() async throws {
        try await Self.withStack { stack in
            let other = try await stack.startDiscovery()
            var restarted: EndToEndServiceProcess?
            let rpc = (identity: RPCClient(host: "127.0.0.1", port: stack.identity.port),
                       other: RPCClient(host: "127.0.0.1", port: other.port))
            let policy = RetryPolicy(initialBackoff: .milliseconds(50), maxBackoff: .milliseconds(400))
            let devices = try (0..<2).map { _ in try Self.client(stack, app: "swivo", retryPolicy: policy) }
            defer {
                devices.forEach { $0.close() }
                rpc.identity.close()
                rpc.other.close()
            }
            do {
                for device in devices { _ = try await device.identity.signInAnonymously() }
                let (host, watcher) = (devices[0], devices[1])
                let third = try await IdentityClient(client: rpc.identity).signInAnonymously(.init(app: "swivo", deviceName: "e2e"))
                let thirdSessions = GroupSessionsClient(client: rpc.other)
                let session = try await host.groupSessions.create(categoryID: "cuisines", quorum: 3)
                _ = try await watcher.groupSessions.join(inviteCode: session.inviteCode)
                _ = try await thirdSessions.joinSession(.init(inviteCode: session.inviteCode), options: .bearer(third.accessToken))

                let watched = Mutex<[Sessions.GroupSession]>([])
                let watching = Task {
                    for try await state in watcher.groupSessions.watch(session.sessionID) { watched.withLock { $0.append(state) } }
                }
                try await Self.until("the first state") { watched.withLock { $0.count } == 1 }

                await stack.discovery.kill()
                let admin = try LocalPort.free()
                restarted = try await stack.startDiscovery(port: stack.discovery.port,
                                                           environment: ["RV_DISCOVERY_ADMIN_PORT": String(admin)])
                // The only call that stays open on the new instance is the watcher's stream.
                try await Self.until("the watch is open on the restarted instance") {
                    let metrics = try await HTTPProbe.get("/metrics", port: admin).body
                    return metrics.split(separator: "\n").contains { line in
                        line.hasPrefix("rpc_server_active_calls") && (line.split(separator: " ").last.flatMap { Double($0) } ?? 0) > 0
                    }
                }
                let pick = try #require(try await host.groupSessions.deck(session.sessionID).options.first)
                for device in devices { #expect(try await !device.groupSessions.like(optionID: pick.optionID, in: session.sessionID).matchFound) }

                await restarted?.kill()
                let last = try await thirdSessions.likeOption(.init(sessionID: session.sessionID, optionID: pick.optionID),
                                                              options: .bearer(third.accessToken))
                #expect(last.matchFound)
                restarted = try await stack.startDiscovery(port: stack.discovery.port)
                let stopper = Task {
                    try await Task.sleep(for: .seconds(20))
                    watching.cancel()
                }
                try await watching.value
                stopper.cancel()
                let states = watched.withLock { $0 }
                #expect(states.map(\.status) == [.open, .matched])
                #expect(states.first?.participants.count == 3)
                #expect(states.last?.matchedOption?.optionID == pick.optionID)
            } catch {
                print("other discovery log:\n\(other.log)\nrestarted discovery log:\n\(restarted?.log ?? "")")
                await restarted?.stop()
                await other.stop()
                throw error
            }
            await restarted?.stop()
            await other.stop()
        }
    }

    /// ÉLITE free's five likes a day through the gateway client: the sixth is RESOURCE_EXHAUSTED
    /// QUOTA_EXCEEDED with the reset time (the next UTC midnight), and the discovery behind the
    /// edge, restarted with its clock 1 s past that reset (the test-only clock), gives the day's
    /// likes back.
    @Test func likeQuota_throughTheEdge_isWholeAgainAfterTheReportedReset() async throws {
        try await Self.withStack { stack in
            let password = "correct horse battery staple"
            let clients = try (0..<7).map { _ in try Self.client(stack, app: "elite") }
            defer { clients.forEach { $0.close() } }
            var accounts: [Identity.Account] = []
            for client in clients {
                accounts.append(try await client.signUpAdmitted("\(TestDatabase.uniqueName("quota"))@example.com",
                                                                password: password))
                var fields = Profiles.ProfileFields()
                fields.bio = "hello"
                fields.active = true
                _ = try await client.profiles.updateProfile(fields, mask: ["bio", "active"])
            }
            let liker = clients[0]
            for account in accounts[1...5] { _ = try await Self.like(account.id, by: liker) }
            var resetsAt: Int64 = 0
            do {
                _ = try await Self.like(accounts[6].id, by: liker)
                Issue.record("a sixth like on ÉLITE free was taken")
            } catch let error as GatewayError {
                #expect(error.code == .resourceExhausted && error.discoveryReason == .quotaExceeded)
                resetsAt = try #require(error.details["resets_at"].flatMap { Int64($0) })
            }
            #expect(resetsAt % 86_400 == 0 && resetsAt > Int64(Date().timeIntervalSince1970), "the reset is a coming UTC midnight")
            #expect(try await liker.discovery.quota().likesRemaining == 0)

            await stack.discovery.kill()
            let tomorrow = try await stack.startDiscovery(port: stack.discovery.port, environment: [
                "RV_DISCOVERY_TEST_CLOCK": "1",
                "RV_DISCOVERY_CLOCK_OFFSET_SECONDS": String(resetsAt - Int64(Date().timeIntervalSince1970) + 1),
            ])
            do {
                let quota = try await liker.discovery.quota()
                #expect(quota.likesRemaining == 5 && quota.resetsAt?.seconds == resetsAt + 86_400)
                let liked = try await Self.like(accounts[6].id, by: liker)
                #expect(liked.swipe?.action == .like && liked.quota?.likesRemaining == 4)
            } catch {
                print("discovery (a day later) log:\n\(tomorrow.log)")
                await tomorrow.stop()
                throw error
            }
            await tomorrow.stop()
        }
    }

    /// A like of `accountID` by `client`, asked again while discovery has not yet learned of the
    /// profile from identity's events (USER_NOT_FOUND, bounded: 15 s).
    static func like(_ accountID: String, by client: GatewayClient) async throws -> Discovery.SwipeResponse {
        let deadline = ContinuousClock.now + .seconds(15)
        while true {
            do {
                return try await client.discovery.swipe(accountID: accountID, .like)
            } catch {
                guard error.discoveryReason == .userNotFound, ContinuousClock.now < deadline else { throw error }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Polls `condition` every 25 ms for up to 15 s; throws naming `what` when it never holds.
    static func until(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw SubprocessError(message: "timed out waiting for \(what)")
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
