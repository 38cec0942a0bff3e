import Contracts
import Foundation
import GatewayClient
import GatewayClientHTTP2
import RPC
import TestSupport
import Testing

/// The offline queue as an app meets it: swipes and messages made with no network are kept in a
/// file, survive the app being relaunched, and reach the real services through the edge once
/// the network is back — in order, each once, however often they were attempted.
@Suite(.serialized) struct OfflineQueueTests {
    /// A member signed up through the edge whose session is kept in `folder`, so a second client
    /// (the app relaunched, or the same app without a network) can take it over.
    static func member(_ edge: NginxEdge, folder: URL, name: String) async throws -> (GatewayClient, Identity.Account, FileTokenStore) {
        let store = FileTokenStore(url: folder.appendingPathComponent("\(name).session"))
        let client = try GatewayClient(configuration: GatewayConfiguration(host: "127.0.0.1", port: edge.port, security: .plaintext,
                                                                           app: "elite", deviceName: name),
                                       tokenStore: store)
        let account = try await client.signUpAdmitted("\(TestDatabase.uniqueName("offline"))@example.com",
                                                      password: "correct horse battery staple")
        var fields = Profiles.ProfileFields()
        fields.displayName = name
        fields.active = true
        _ = try await client.profiles.updateProfile(fields, mask: ["display_name", "active"])
        return (client, account, store)
    }

    /// The same signed-in user on a phone with no network: every connection is refused.
    static func offline(_ store: FileTokenStore) throws -> GatewayClient {
        try GatewayClient(configuration: GatewayConfiguration(host: "127.0.0.1", port: try LocalPort.free(), security: .plaintext,
                                                              app: "elite", deviceName: "offline",
                                                              retryPolicy: .none),
                          tokenStore: store)
    }

    @Test func actionsQueuedOffline_surviveARelaunch_andArriveInOrder_once() async throws {
        let stack = try await DiscoveryStack.start(withEdge: true, messagingInstances: 1)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rv-offline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let edge = try #require(stack.edge)
            let (ana, anaAccount, anaSession) = try await Self.member(edge, folder: folder, name: "ana")
            let (ben, benAccount, _) = try await Self.member(edge, folder: folder, name: "ben")
            let (eve, _, _) = try await Self.member(edge, folder: folder, name: "eve")
            defer { [ana, ben, eve].forEach { $0.close() } }
            _ = try await EndToEndDiscoveryTests.like(anaAccount.id, by: ben)
            let eveWithBen = try await EndToEndDiscoveryTests.like(benAccount.id, by: eve)
            #expect(eveWithBen.match == nil)

            // Offline, ana swipes ben (a match waiting to happen) and writes to a conversation
            // that is not hers: both actions wait in the file.
            let queueFile = FileOfflineQueueStore(path: folder.appendingPathComponent("ana.queue").path)
            let offlineClient = try Self.offline(anaSession)
            let offlineQueue = OfflineQueue(client: offlineClient, store: queueFile, attemptDeadline: .seconds(2))
            let swiped = await offlineQueue.swipe(accountID: benAccount.id, .like)
            guard case .queued(_, let why) = swiped else { Issue.record("offline swipe: \(swiped)"); return }
            #expect(why?.code == .unavailable)
            let stranger = await offlineQueue.send(text: "hi stranger", in: "00000000-0000-0000-0000-000000000000")
            #expect({ if case .queued = stranger { true } else { false } }())
            #expect(try await offlineQueue.pending().map(\.id) == ["swipe:\(benAccount.id)", stranger.item.id])
            // The same swipe again is the same action, not a second one.
            _ = await offlineQueue.swipe(accountID: benAccount.id, .like)
            #expect(try await offlineQueue.pending().count == 2)
            offlineClient.close()

            // Relaunched with the network back: the swipe makes the match; the message to a
            // conversation that does not exist is refused for good and leaves the queue.
            let online = OfflineQueue(client: ana, store: queueFile)
            #expect(try await online.pending().count == 2)
            let flushed = await online.flush()
            #expect(flushed.count == 2)
            guard case .sent(_, .swipe(let swipe)) = flushed.first else { Issue.record("swipe after relaunch: \(flushed)"); return }
            let match = try #require(swipe.match)
            guard case .failed(_, let refused) = flushed.last else { Issue.record("stranger message: \(flushed)"); return }
            #expect(refused.code == .notFound || refused.code == .permissionDenied)
            #expect(try await online.pending().isEmpty)
            #expect(try queueFile.load().isEmpty)

            // Three messages queued offline arrive in the order written, once each: attempts that
            // run out of time keep them queued, and the first, which reached the server on an
            // attempt whose answer was lost, is answered with the stored message (`replayed`).
            let offlineAgain = OfflineQueue(client: try Self.offline(anaSession), store: queueFile)
            var ids: [String] = []
            for text in ["one", "two", "three"] {
                let outcome = await offlineAgain.send(text: text, in: match.matchID)
                ids.append(outcome.item.id)
            }
            #expect(try await offlineAgain.pending().map(\.id) == ids)
            let hurried = OfflineQueue(client: ana, store: queueFile, attemptDeadline: .milliseconds(1))
            let lost = await hurried.flush()
            #expect(lost.allSatisfy { if case .queued(_, let error) = $0 { error?.code == .deadlineExceeded } else { false } })
            // (The hurried attempt may itself have reached the server: this send is then the replay.)
            let delivered = try await ana.messaging.send(text: "one", in: match.matchID, clientMessageID: ids[0])
            let relaunched = OfflineQueue(client: ana, store: queueFile)
            // Two flushes at once (a reachability callback and app launch) still send each once.
            async let first = relaunched.flush()
            async let second = relaunched.flush()
            let sent = (await first + second).compactMap { outcome -> Messaging.SendMessageResponse? in
                if case .sent(_, .message(let response)) = outcome { response } else { nil }
            }
            #expect(sent.map(\.replayed) == [true, false, false])
            #expect(sent.first?.message?.messageID == delivered.message?.messageID)
            #expect(try await relaunched.pending().isEmpty)
            let messages = try await ben.messaging.messages(in: match.matchID).messages
            #expect(messages.map(\.body).reversed() == ["one", "two", "three"].map { .text($0) })
            #expect(messages.map(\.clientMessageID).reversed() == ids)
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    @Test func aFullQueue_refusesMore_andAQueueFileOfAnotherFormat_readsAsEmpty() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rv-offline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("queue").path
        try Data("{\"version\": 99, \"items\": []}".utf8).write(to: URL(fileURLWithPath: path))
        let store = FileOfflineQueueStore(path: path)
        #expect(try store.load().isEmpty)

        let client = try GatewayClient(configuration: GatewayConfiguration(host: "127.0.0.1", port: try LocalPort.free(),
                                                                           security: .plaintext, app: "elite", retryPolicy: .none),
                                       tokenStore: InMemoryTokenStore())
        defer { client.close() }
        let queue = OfflineQueue(client: client, store: store, capacity: 2)
        // Signed out: the actions wait for a session rather than being dropped.
        let first = await queue.send(text: "a", in: "c")
        #expect(first.error?.isSignedOut == true)
        _ = await queue.like(optionID: "o", in: "s")
        let third = await queue.send(text: "c", in: "c")
        guard case .failed(_, let full) = third else { Issue.record("third: \(third)"); return }
        #expect(full.code == .resourceExhausted)
        #expect(try store.load().map(\.id) == [first.item.id, "like:s:o"])
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }
}
