import Contracts
import Foundation
import GatewayClient
import RPC
import Testing

/// Push tokens against the identity executable: the app's side through `client.devices`, and
/// the push sender's side (`messaging`, with its service credential) through the Contracts
/// DevicesInternal stub, as a service calls it: never through the gateway client.
@Suite(.identityService, .timeLimit(.minutes(2)))
struct EndToEndDevicesTests {
    @Test func register_list_registerAgain_unregister() async throws {
        let client = try EndToEnd.client(app: "swivo")
        defer { client.close() }
        _ = try await client.identity.signInAnonymously()
        let token = Self.apnsToken()

        let registered = try await client.devices.registerPushToken(
            token.uppercased(), platform: .apns, environment: .sandbox, deviceID: "ios-vendor-1", appVersion: "1.0 (1)")
        #expect(registered.token == token && registered.active)
        #expect(registered.platform == .apns && registered.environment == .sandbox && registered.deviceID == "ios-vendor-1")
        #expect(try await client.devices.listMyPushTokens().map(\.token) == [token])

        // The next launch registers the same token: still one token, with the new details.
        let again = try await client.devices.registerPushToken(token, platform: .apns, environment: .sandbox,
                                                               deviceID: "ios-vendor-1", appVersion: "1.1 (2)")
        #expect(again.createdAt == registered.createdAt)
        let listed = try await client.devices.listMyPushTokens()
        #expect(listed.count == 1 && listed.first?.appVersion == "1.1 (2)" && listed.first?.active == true)
        #expect(Self.seconds(listed.first?.lastSeenAt) >= Self.seconds(registered.lastSeenAt))

        #expect(try await client.devices.unregisterPushToken(token))
        #expect(try await client.devices.listMyPushTokens().isEmpty)
        #expect(try await client.devices.unregisterPushToken(token) == false)
    }

    @Test func aNewTokenOnTheSameDevice_replacesTheOld_andARotationMovesItOn() async throws {
        let client = try EndToEnd.client(app: "unseen")
        defer { client.close() }
        _ = try await client.identity.signInAnonymously()
        let first = Self.fcmToken(), second = Self.fcmToken(), rotated = Self.fcmToken()
        _ = try await client.devices.registerPushToken(first, platform: .fcm, deviceID: "android-1")
        _ = try await client.devices.registerPushToken(second, platform: .fcm, deviceID: "android-1")
        let replaced = try await client.devices.listMyPushTokens()
        #expect(replaced.map(\.token) == [second, first])
        #expect(replaced.map(\.active) == [true, false] && replaced.last?.inactiveReason == .replaced)

        let refreshed = try await client.devices.refreshPushToken(from: second, to: rotated, appVersion: "3.0")
        #expect(refreshed.token == rotated && refreshed.deviceID == "android-1" && refreshed.platform == .fcm)
        #expect(try await client.devices.listMyPushTokens().filter(\.active).map(\.token) == [rotated])
        let gone = await gatewayError { _ = try await client.devices.refreshPushToken(from: second, to: Self.fcmToken()) }
        #expect(gone?.code == .notFound && gone?.reason == "PUSH_TOKEN_NOT_FOUND")
    }

    @Test func anotherAccount_cannotUnregisterMyToken() async throws {
        let mine = try EndToEnd.client(app: "swivo")
        let theirs = try EndToEnd.client(app: "swivo")
        defer { mine.close(); theirs.close() }
        _ = try await mine.identity.signInAnonymously()
        _ = try await theirs.identity.signInAnonymously()
        let token = Self.apnsToken()
        _ = try await mine.devices.registerPushToken(token, platform: .apns, environment: .production, deviceID: "iphone")

        #expect(try await theirs.devices.unregisterPushToken(token) == false)
        #expect(try await mine.devices.listMyPushTokens().map(\.token) == [token])
        #expect(try await theirs.devices.listMyPushTokens().isEmpty)
    }

    @Test func anInvalidToken_isInvalidArgument_withItsReasonAndWhatWasExpected() async throws {
        let client = try EndToEnd.client(app: "swivo")
        defer { client.close() }
        _ = try await client.identity.signInAnonymously()

        let short = await gatewayError {
            _ = try await client.devices.registerPushToken("abc", platform: .apns, environment: .production, deviceID: "iphone")
        }
        #expect(short?.code == .invalidArgument && short?.reason == "INVALID_PUSH_TOKEN")
        #expect(short?.details["platform"] == "apns")
        #expect(short?.details["expected"]?.contains("hexadecimal") == true)
        let noDevice = await gatewayError {
            _ = try await client.devices.registerPushToken(Self.apnsToken(), platform: .apns, environment: .production, deviceID: "")
        }
        #expect(noDevice?.code == .invalidArgument && noDevice?.reason == "INVALID_DEVICE_ID")
        let noEnvironment = await gatewayError {
            _ = try await client.devices.registerPushToken(Self.apnsToken(), platform: .apns, deviceID: "iphone")
        }
        #expect(noEnvironment?.reason == "INVALID_PUSH_ENVIRONMENT")
        #expect(try await client.devices.listMyPushTokens().isEmpty)
    }

    @Test func signedOut_devicesCalls_areSignedOut() async throws {
        let client = try EndToEnd.client(app: "swivo")
        defer { client.close() }
        let error = await gatewayError { _ = try await client.devices.listMyPushTokens() }
        #expect(error?.isSignedOut == true)
    }

    // MARK: The push sender's side

    @Test func thePushSender_withItsServiceCredential_listsTheTokenTheAppRegistered() async throws {
        let client = try EndToEnd.client(app: "momento")
        defer { client.close() }
        let account = try await client.identity.signInAnonymously()
        let token = Self.apnsToken()
        _ = try await client.devices.registerPushToken(token, platform: .apns, environment: .production, deviceID: "iphone")

        let sender = try Self.pushSender()
        defer { sender.client.close() }
        let listed = try await sender.listActivePushTokens(.init(app: "momento", accountIDs: [account.id]),
                                                           options: Self.service("messaging", IdentityServiceTrait.messagingSecret)).tokens
        #expect(listed.map(\.token) == [token])
        #expect(listed.first?.accountID == account.id && listed.first?.app == "momento")

        // Deleting the account takes its tokens with it.
        try await client.identity.deleteAccount()
        let afterDeletion = try await sender.listActivePushTokens(.init(app: "momento", accountIDs: [account.id]),
                                                                  options: Self.service("messaging", IdentityServiceTrait.messagingSecret))
        #expect(afterDeletion.tokens.isEmpty)
    }

    @Test func devicesInternal_refusesAnAppsAccessToken_andAWrongSecret() async throws {
        let client = try EndToEnd.client(app: "swivo")
        defer { client.close() }
        let account = try await client.identity.signInAnonymously()
        let session = try #require(try client.currentSession())
        let sender = try Self.pushSender()
        defer { sender.client.close() }
        let request = Devices.ListActivePushTokensRequest(app: "swivo", accountIDs: [account.id])

        let asApp = await gatewayError { _ = try await sender.listActivePushTokens(request, options: .bearer(session.accessToken)) }
        #expect(asApp?.code == .unauthenticated && asApp?.reason == "MISSING_SERVICE_CREDENTIAL")
        let wrongSecret = await gatewayError {
            _ = try await sender.listActivePushTokens(request, options: Self.service("messaging", String(repeating: "x", count: 40)))
        }
        #expect(wrongSecret?.code == .unauthenticated && wrongSecret?.reason == "BAD_SERVICE_CREDENTIAL")
    }

    // MARK: Helpers

    /// The DevicesInternal stub on its own connection to the executable, as a service has it.
    static func pushSender() throws -> DevicesInternalClient {
        DevicesInternalClient(client: RPCClient(host: "127.0.0.1", port: try EndToEnd.identity.port))
    }

    /// `authorization: Service <name>:<secret>`.
    static func service(_ name: String, _ secret: String) -> CallOptions {
        var metadata = Metadata()
        metadata.addString("Service \(name):\(secret)", forKey: "authorization")
        return CallOptions(timeout: .seconds(10), metadata: metadata)
    }

    /// A fresh APNs device token: 32 random bytes in lowercase hex.
    static func apnsToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// A fresh FCM-shaped registration token.
    static func fcmToken() -> String {
        "c" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(21) + ":APA91b" + String(repeating: "Hx_-", count: 30)
    }

    static func seconds(_ timestamp: Timestamp?) -> Int64 { timestamp?.seconds ?? 0 }
}
