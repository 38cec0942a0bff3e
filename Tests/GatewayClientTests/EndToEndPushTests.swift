import Contracts
import Foundation
import GatewayClient
import RPC
import TestSupport
import Testing

/// Push as an app meets it: devices registered and preferences set through `GatewayClient` and
/// the nginx edge, pushes arriving at a fake APNs from the real messaging executable, and a
/// token APNs calls unregistered (410) showing inactive to its owner.
@Suite(.serialized) struct EndToEndPushTests {
    @Test func aMatchAndAMessage_arePushed_preferencesHold_andAnUnregisteredTokenIsDropped() async throws {
        try await PushDeploymentLock.withLock { try await Self.deployAndRun() }
    }

    static func deployAndRun() async throws {
        let fake = try FakeAPNs()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rv-e2e-push-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let stack: DiscoveryStack
        do {
            stack = try await DiscoveryStack.start(withEdge: true, messagingInstances: 1,
                                                   messagingEnvironment: try fake.messagingEnvironment(directory: directory))
        } catch {
            await fake.stop()
            throw error
        }
        do {
            try await Self.run(try #require(stack.edge), fake)
        } catch {
            print(stack.logs)
            await stack.stop()
            await fake.stop()
            throw error
        }
        await stack.stop()
        await fake.stop()
    }

    static func run(_ edge: NginxEdge, _ fake: FakeAPNs) async throws {
        let (ana, anaAccount) = try await EndToEndMessagingTests.member(edge)
        let (ben, benAccount) = try await EndToEndMessagingTests.member(edge)
        defer { [ana, ben].forEach { $0.close() } }
        let anaToken = randomToken()
        let benToken = randomToken()
        _ = try await ana.devices.registerPushToken(anaToken, platform: .apns, environment: .production, deviceID: "ana-phone")
        _ = try await ben.devices.registerPushToken(benToken, platform: .apns, environment: .sandbox, deviceID: "ben-phone")

        // Ana wants no match pushes; ben keeps the defaults (all but episodes).
        let preferences = try await ana.push.setPreferences([.match: false])
        #expect(preferences.categories.first { $0.category == .match }?.enabled == false)
        #expect(try await ben.push.preferences().categories.filter { !$0.enabled }.map(\.category) == [.episodePublished])
        let refused = await gatewayError { _ = try await ben.push.setPreferences([.unspecified: true]) }
        #expect(refused?.code == .invalidArgument && refused?.pushReason == .invalidPushCategory)

        _ = try await EndToEndDiscoveryTests.like(benAccount.id, by: ana)
        let match = try #require(try await ben.discovery.swipe(accountID: anaAccount.id, .like).match)
        let matchPush = try #require(try await fake.waitFor(benToken) { $0.contains { $0.category == "match" } }.first)
        #expect(matchPush.topic == "com.example.elite" && matchPush.pushType == "alert")
        #expect(matchPush.payload["deep_link"]?.stringValue == "elite://conversation/\(match.matchID)")

        let hello = try #require(try await ben.messaging.send(text: "Dinner on Friday?", in: match.matchID).message)
        let messagePush = try #require(try await fake.waitFor(anaToken) { $0.contains { $0.category == "message" } }
            .first { $0.category == "message" })
        #expect(messagePush.alertBody == "Dinner on Friday?" && messagePush.collapseID == hello.messageID)
        // Ana turned match pushes off: her only push is the message.
        #expect(fake.requests(to: anaToken).map { $0.category } == ["message"])

        // Ben's app was uninstalled: APNs answers 410 and identity drops the token.
        fake.script(benToken, [.error(410, "Unregistered")])
        _ = try await ana.messaging.send(text: "See you there", in: match.matchID)
        _ = try await fake.waitFor(benToken) { $0.contains { $0.status == 410 } }
        let waitUntil = ContinuousClock.now + .seconds(15)
        var tokens = try await ben.devices.listMyPushTokens()
        while tokens.first?.active != false, ContinuousClock.now < waitUntil {
            try await Task.sleep(for: .milliseconds(20))
            tokens = try await ben.devices.listMyPushTokens()
        }
        #expect(tokens.first { $0.token == benToken }?.active == false)
        #expect(tokens.first { $0.token == benToken }?.inactiveReason == .unregistered)
    }

    static func randomToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}
