import Auth
import Contracts
import Foundation
@testable import Identity
import Postgres
import RPC
import Testing

/// Push tokens over the wire: register, refresh, unregister and list for apps; the move of a
/// token between accounts; limits; validation; and the internal methods push senders use.
@Suite struct DeviceTests {
    typealias Messages = Devices

    // Valid literals: names of a-z and 40-character secrets.
    static let messaging = try! ServiceCredential(name: "messaging", secret: String(repeating: "m", count: 40))
    static let discovery = try! ServiceCredential(name: "discovery", secret: String(repeating: "d", count: 40))

    /// A signed-in account and the options carrying its access token.
    struct Member {
        let accountID: String
        let app: String
        let options: CallOptions
    }

    /// The harness with messaging and discovery accepted; messaging alone may read tokens.
    static func start(_ configure: @escaping (inout IdentitySettings) -> Void = { _ in }) async throws -> IdentityHarness {
        try await IdentityHarness.start { settings in
            settings.serviceCredentials = ServiceCredentials([messaging, discovery])
            configure(&settings)
        }
    }

    static func signIn(_ harness: IdentityHarness, app: String = "swivo") async throws -> Member {
        let session = try await harness.client.signInAnonymously(.init(app: app))
        return Member(accountID: session.account?.id ?? "", app: app, options: .bearer(session.accessToken))
    }

    /// A fresh APNs device token: 32 random bytes in hex.
    static func apnsToken() -> String {
        (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

    /// A fresh FCM-shaped registration token.
    static func fcmToken() -> String {
        "c" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(21) + ":APA91b" + String(repeating: "Hx_-", count: 30)
    }

    static func apns(_ token: String, device: String = "device-1", environment: Messages.PushEnvironment = .production,
                     appVersion: String = "") -> Messages.RegisterPushTokenRequest {
        Messages.RegisterPushTokenRequest(token: token, platform: .apns, environment: environment, deviceID: device,
                                          appVersion: appVersion)
    }

    static func activeTokens(_ harness: IdentityHarness, app: String = "swivo", _ members: [Member]) async throws -> [Messages.PushToken] {
        try await DevicesInternalClient(client: harness.rpc).listActivePushTokens(
            .init(app: app, accountIDs: members.map(\.accountID)), options: .service(messaging)).tokens
    }

    // MARK: - Register, list

    @Test func register_thenList_showsTheTokenLowercased_withItsDetails() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let member = try await Self.signIn(harness)
        let token = Self.apnsToken()
        let registered = try await devices.registerPushToken(
            Self.apns(token.uppercased(), device: "ios-vendor-1", environment: .sandbox, appVersion: "2.4.1 (318)"),
            options: member.options)
        #expect(registered.token == token)
        #expect(registered.platform == .apns && registered.environment == .sandbox)
        #expect(registered.deviceID == "ios-vendor-1" && registered.appVersion == "2.4.1 (318)")
        #expect(registered.active && registered.inactiveReason == .unspecified)
        #expect(registered.accountID == member.accountID && registered.app == "swivo")
        #expect(registered.createdAt != nil && registered.createdAt == registered.lastSeenAt)

        let fcm = Self.fcmToken()
        let android = try await devices.registerPushToken(.init(token: fcm, platform: .fcm, deviceID: "android-1"),
                                                          options: member.options)
        #expect(android.token == fcm && android.environment == .production)

        let listed = try await devices.listMyPushTokens(options: member.options).tokens
        #expect(listed.map(\.token) == [fcm, token])
        await harness.stop()
    }

    @Test func register_sameTokenAgain_refreshesLastSeen_reactivates_andKeepsOneRow() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let member = try await Self.signIn(harness)
        let token = Self.apnsToken()
        let first = try await devices.registerPushToken(Self.apns(token, appVersion: "1.0"), options: member.options)
        let marked = try await DevicesInternalClient(client: harness.rpc).markPushTokenInactive(
            .init(app: "swivo", token: token, reason: .unregistered), options: .service(Self.messaging))
        #expect(marked.deactivated)
        let inactive = try await devices.listMyPushTokens(options: member.options).tokens
        #expect(inactive.count == 1 && !inactive[0].active && inactive[0].inactiveReason == .unregistered)
        #expect(try await Self.activeTokens(harness, [member]).isEmpty)

        try await Task.sleep(for: .milliseconds(5))
        let again = try await devices.registerPushToken(Self.apns(token), options: member.options)
        #expect(again.active && again.inactiveReason == .unspecified)
        #expect(again.createdAt == first.createdAt)
        #expect((again.lastSeenAt ?? Timestamp()) > (first.lastSeenAt ?? Timestamp()))
        #expect(again.appVersion == "1.0", "an empty app_version keeps the stored one")
        #expect(try await devices.listMyPushTokens(options: member.options).tokens.count == 1)
        #expect(try await Self.activeTokens(harness, [member]).map(\.token) == [token])
        await harness.stop()
    }

    @Test func register_tokenHeldByAnotherAccount_movesIt() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let previous = try await Self.signIn(harness)
        let next = try await Self.signIn(harness)
        let token = Self.apnsToken()
        _ = try await devices.registerPushToken(Self.apns(token), options: previous.options)
        let moved = try await devices.registerPushToken(Self.apns(token), options: next.options)
        #expect(moved.accountID == next.accountID)
        #expect(try await devices.listMyPushTokens(options: previous.options).tokens.isEmpty)
        #expect(try await devices.listMyPushTokens(options: next.options).tokens.map(\.token) == [token])
        let active = try await Self.activeTokens(harness, [previous, next])
        #expect(active.map(\.accountID) == [next.accountID])
        await harness.stop()
    }

    @Test func register_sameTokenInAnotherApp_isAnotherRow_andListsStayPerApp() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let swivo = try await Self.signIn(harness, app: "swivo")
        let unseen = try await Self.signIn(harness, app: "unseen")
        let token = Self.apnsToken()
        _ = try await devices.registerPushToken(Self.apns(token), options: swivo.options)
        _ = try await devices.registerPushToken(Self.apns(token), options: unseen.options)
        #expect(try await devices.listMyPushTokens(options: swivo.options).tokens.map(\.token) == [token])
        #expect(try await Self.activeTokens(harness, app: "swivo", [swivo, unseen]).map(\.accountID) == [swivo.accountID])
        #expect(try await Self.activeTokens(harness, app: "unseen", [swivo, unseen]).map(\.accountID) == [unseen.accountID])
        await harness.stop()
    }

    @Test func register_newTokenOnTheSameDevice_replacesTheOldOne() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let member = try await Self.signIn(harness)
        let old = Self.apnsToken()
        let new = Self.apnsToken()
        let tablet = Self.apnsToken()
        _ = try await devices.registerPushToken(Self.apns(old, device: "phone"), options: member.options)
        _ = try await devices.registerPushToken(Self.apns(tablet, device: "tablet"), options: member.options)
        _ = try await devices.registerPushToken(Self.apns(new, device: "phone"), options: member.options)
        let listed = try await devices.listMyPushTokens(options: member.options).tokens
        #expect(listed.filter(\.active).map(\.token) == [new, tablet])
        #expect(listed.first { $0.token == old }?.inactiveReason == .replaced)
        #expect(Set(try await Self.activeTokens(harness, [member]).map(\.token)) == [new, tablet])
        await harness.stop()
    }

    @Test func aVoIPToken_standsBesideTheDevicesAlertToken_andReplacesOnlyAVoIPToken() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let member = try await Self.signIn(harness)
        let (alert, voip, newVoip) = (Self.apnsToken(), Self.apnsToken(), Self.apnsToken())
        var request = Self.apns(voip, device: "phone")
        request.kind = .voip
        _ = try await devices.registerPushToken(Self.apns(alert, device: "phone"), options: member.options)
        #expect(try await devices.registerPushToken(request, options: member.options).kind == .voip)
        request.token = newVoip
        _ = try await devices.registerPushToken(request, options: member.options)
        let active = try await Self.activeTokens(harness, [member])
        #expect(Set(active.map(\.token)) == [alert, newVoip])
        #expect(active.first { $0.token == alert }?.kind == .alert && active.first { $0.token == newVoip }?.kind == .voip)
        let listed = try await devices.listMyPushTokens(options: member.options).tokens
        #expect(listed.first { $0.token == voip }?.inactiveReason == .replaced)
        // PushKit is Apple's: no VoIP token from FCM.
        var fcm = Messages.RegisterPushTokenRequest(token: Self.fcmToken(), platform: .fcm, environment: .production,
                                                    deviceID: "android")
        fcm.kind = .voip
        let refused = await rpcError { _ = try await devices.registerPushToken(fcm, options: member.options) }
        #expect(refused?.code == .invalidArgument && refused?.reason == "INVALID_PLATFORM")
        await harness.stop()
    }

    @Test func register_beyondTheLimit_deactivatesTheLeastRecentlySeen_andBoundsInactiveRows() async throws {
        let harness = try await Self.start { settings in
            settings.devices.maxActiveTokensPerAccount = 3
            settings.devices.maxInactiveTokensPerAccount = 2
        }
        let devices = DevicesClient(client: harness.rpc)
        let member = try await Self.signIn(harness)
        var tokens: [String] = []
        for index in 0..<6 {
            let token = Self.apnsToken()
            tokens.append(token)
            _ = try await devices.registerPushToken(Self.apns(token, device: "device-\(index)"), options: member.options)
        }
        let listed = try await devices.listMyPushTokens(options: member.options).tokens
        #expect(listed.filter(\.active).map(\.token) == [tokens[5], tokens[4], tokens[3]])
        let inactive = listed.filter { !$0.active }
        #expect(inactive.map(\.token) == [tokens[2], tokens[1]])
        #expect(inactive.allSatisfy { $0.inactiveReason == .tooManyDevices })

        // Seen again, the oldest comes back and the now least recently seen goes.
        _ = try await devices.registerPushToken(Self.apns(tokens[1], device: "device-1"), options: member.options)
        let active = try await Self.activeTokens(harness, [member]).map(\.token)
        #expect(active == [tokens[1], tokens[5], tokens[4]])
        await harness.stop()
    }

    @Test func register_withoutAccessToken_isUnauthenticated() async throws {
        let harness = try await Self.start()
        let error = await rpcError {
            _ = try await DevicesClient(client: harness.rpc).registerPushToken(Self.apns(Self.apnsToken()), options: CallOptions())
        }
        #expect(error?.code == .unauthenticated && error?.reason == "MISSING_TOKEN")
        await harness.stop()
    }

    @Test func register_deletedAccount_isAccountNotFound_andDeletionRemovesTokens() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let member = try await Self.signIn(harness)
        let token = Self.apnsToken()
        _ = try await devices.registerPushToken(Self.apns(token), options: member.options)
        let accountID = try #require(UUID(uuidString: member.accountID))
        try await harness.pool.withConnection { connection in
            _ = try await connection.execute("DELETE FROM identity.accounts WHERE id = $1", [.uuid(accountID)])
        }
        let remaining = try await harness.pool.withConnection { connection in
            try await connection.query("SELECT count(*) FROM identity.push_tokens WHERE token = $1", [.text(token)])[0]
                .decode(0, as: Int.self)
        }
        #expect(remaining == 0)
        let error = await rpcError { _ = try await devices.registerPushToken(Self.apns(token), options: member.options) }
        #expect(error?.code == .unauthenticated && error?.reason == "ACCOUNT_NOT_FOUND")
        await harness.stop()
    }

    // MARK: - Validation

    @Test func register_invalidFields_areInvalidArgument_withTheirReason() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let member = try await Self.signIn(harness)
        let hex = Self.apnsToken()
        let fcm = Self.fcmToken()
        let cases: [(String, Messages.RegisterPushTokenRequest, String)] = [
            ("empty token", Self.apns(""), "INVALID_PUSH_TOKEN"),
            ("63 hex digits", Self.apns(String(hex.dropLast())), "INVALID_PUSH_TOKEN"),
            ("65 hex digits", Self.apns(hex + "a"), "INVALID_PUSH_TOKEN"),
            ("202 hex digits", Self.apns(String(repeating: "ab", count: 101)), "INVALID_PUSH_TOKEN"),
            ("not hex", Self.apns(String(hex.dropLast()) + "g"), "INVALID_PUSH_TOKEN"),
            ("apns with a space", Self.apns(String(hex.prefix(32)) + " " + String(hex.dropFirst(33))), "INVALID_PUSH_TOKEN"),
            ("fcm too short", .init(token: String(fcm.prefix(31)), platform: .fcm, deviceID: "a"), "INVALID_PUSH_TOKEN"),
            ("fcm too long", .init(token: String(repeating: "a", count: 1025), platform: .fcm, deviceID: "a"), "INVALID_PUSH_TOKEN"),
            ("fcm with a slash", .init(token: fcm + "/x", platform: .fcm, deviceID: "a"), "INVALID_PUSH_TOKEN"),
            ("fcm not ascii", .init(token: fcm + "é", platform: .fcm, deviceID: "a"), "INVALID_PUSH_TOKEN"),
            ("no platform", .init(token: hex, platform: .unspecified, deviceID: "a"), "INVALID_PLATFORM"),
            ("unknown platform", .init(token: hex, platform: .init(rawValue: 9), deviceID: "a"), "INVALID_PLATFORM"),
            ("apns without environment", .init(token: hex, platform: .apns, environment: .unspecified, deviceID: "a"),
             "INVALID_PUSH_ENVIRONMENT"),
            ("apns unknown environment", .init(token: hex, platform: .apns, environment: .init(rawValue: 7), deviceID: "a"),
             "INVALID_PUSH_ENVIRONMENT"),
            ("fcm sandbox", .init(token: fcm, platform: .fcm, environment: .sandbox, deviceID: "a"), "INVALID_PUSH_ENVIRONMENT"),
            ("no device id", Self.apns(hex, device: ""), "INVALID_DEVICE_ID"),
            ("device id of 129", Self.apns(hex, device: String(repeating: "d", count: 129)), "INVALID_DEVICE_ID"),
            ("device id with a space", Self.apns(hex, device: "my phone"), "INVALID_DEVICE_ID"),
            ("device id not ascii", Self.apns(hex, device: "téléphone"), "INVALID_DEVICE_ID"),
            ("app version of 65", Self.apns(hex, appVersion: String(repeating: "1", count: 65)), "INVALID_APP_VERSION"),
            ("app version with a newline", Self.apns(hex, appVersion: "1.0\n"), "INVALID_APP_VERSION"),
        ]
        for (name, request, reason) in cases {
            let error = await rpcError { _ = try await devices.registerPushToken(request, options: member.options) }
            #expect(error?.code == .invalidArgument && error?.reason == reason, "\(name)")
        }
        let apnsError = await rpcError { _ = try await devices.registerPushToken(Self.apns("abc"), options: member.options) }
        #expect(apnsError?.details["platform"] == "apns")
        #expect(apnsError?.details["expected"]?.contains("hexadecimal") == true)
        #expect(try await devices.listMyPushTokens(options: member.options).tokens.isEmpty)
        await harness.stop()
    }

    @Test func register_edgesOfTheFormats_areAccepted() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let member = try await Self.signIn(harness)
        let long = String(repeating: "AB", count: 100)
        let longAPNs = try await devices.registerPushToken(Self.apns(long, device: "a"), options: member.options)
        #expect(longAPNs.token == long.lowercased())
        let shortFCM = String(repeating: "x", count: 32)
        _ = try await devices.registerPushToken(.init(token: shortFCM, platform: .fcm, environment: .production, deviceID: "b",
                                                      appVersion: String(repeating: "9", count: 64)), options: member.options)
        _ = try await devices.registerPushToken(Self.apns(Self.apnsToken(), device: String(repeating: "~", count: 128)),
                                                options: member.options)
        #expect(try await devices.listMyPushTokens(options: member.options).tokens.count == 3)
        await harness.stop()
    }

    // MARK: - Refresh

    @Test func refresh_replacesTheOldToken_keepingPlatformEnvironmentAndDevice() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let member = try await Self.signIn(harness)
        let old = Self.apnsToken()
        let new = Self.apnsToken()
        _ = try await devices.registerPushToken(Self.apns(old, device: "phone", environment: .sandbox, appVersion: "1.0"),
                                                options: member.options)
        let refreshed = try await devices.refreshPushToken(.init(oldToken: old.uppercased(), newToken: new, appVersion: "1.1"),
                                                           options: member.options)
        #expect(refreshed.token == new && refreshed.active)
        #expect(refreshed.platform == .apns && refreshed.environment == .sandbox && refreshed.deviceID == "phone")
        #expect(refreshed.appVersion == "1.1")
        #expect(try await devices.listMyPushTokens(options: member.options).tokens.map(\.token) == [new])

        let again = await rpcError { _ = try await devices.refreshPushToken(.init(oldToken: old, newToken: new), options: member.options) }
        #expect(again?.code == .notFound && again?.reason == "PUSH_TOKEN_NOT_FOUND")

        // The same token again just touches it.
        let same = try await devices.refreshPushToken(.init(oldToken: new, newToken: new), options: member.options)
        #expect(same.token == new && same.appVersion == "1.1")
        await harness.stop()
    }

    @Test func refresh_anotherAccountsToken_isNotFound_andABadNewToken_keepsTheOld() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let owner = try await Self.signIn(harness)
        let other = try await Self.signIn(harness)
        let token = Self.apnsToken()
        _ = try await devices.registerPushToken(Self.apns(token), options: owner.options)

        let stolen = await rpcError {
            _ = try await devices.refreshPushToken(.init(oldToken: token, newToken: Self.apnsToken()), options: other.options)
        }
        #expect(stolen?.code == .notFound && stolen?.reason == "PUSH_TOKEN_NOT_FOUND")

        let fcmForAPNs = await rpcError {
            _ = try await devices.refreshPushToken(.init(oldToken: token, newToken: Self.fcmToken()), options: owner.options)
        }
        #expect(fcmForAPNs?.code == .invalidArgument && fcmForAPNs?.reason == "INVALID_PUSH_TOKEN")
        let badOld = await rpcError {
            _ = try await devices.refreshPushToken(.init(oldToken: "", newToken: Self.apnsToken()), options: owner.options)
        }
        #expect(badOld?.reason == "INVALID_PUSH_TOKEN")
        #expect(try await devices.listMyPushTokens(options: owner.options).tokens.map(\.token) == [token])
        await harness.stop()
    }

    @Test func refresh_toATokenAnotherAccountHeld_movesIt_andLeavesOneRow() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let member = try await Self.signIn(harness)
        let previous = try await Self.signIn(harness)
        let old = Self.apnsToken()
        let new = Self.apnsToken()
        _ = try await devices.registerPushToken(Self.apns(old), options: member.options)
        _ = try await devices.registerPushToken(Self.apns(new), options: previous.options)
        _ = try await devices.refreshPushToken(.init(oldToken: old, newToken: new), options: member.options)
        #expect(try await devices.listMyPushTokens(options: member.options).tokens.map(\.token) == [new])
        #expect(try await devices.listMyPushTokens(options: previous.options).tokens.isEmpty)
        await harness.stop()
    }

    // MARK: - Unregister

    @Test func unregister_ownToken_removesIt_andRepeatingIsHarmless() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let member = try await Self.signIn(harness)
        let token = Self.apnsToken()
        _ = try await devices.registerPushToken(Self.apns(token), options: member.options)
        #expect(try await devices.unregisterPushToken(.init(token: token.uppercased()), options: member.options).removed)
        #expect(try await devices.listMyPushTokens(options: member.options).tokens.isEmpty)
        #expect(try await devices.unregisterPushToken(.init(token: token), options: member.options).removed == false)
        #expect(try await devices.unregisterPushToken(.init(token: Self.fcmToken()), options: member.options).removed == false)
        let empty = await rpcError { _ = try await devices.unregisterPushToken(.init(token: ""), options: member.options) }
        #expect(empty?.code == .invalidArgument && empty?.reason == "INVALID_PUSH_TOKEN")
        await harness.stop()
    }

    @Test func unregister_anotherAccountsToken_leavesItAlone() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let owner = try await Self.signIn(harness)
        let other = try await Self.signIn(harness)
        let token = Self.apnsToken()
        _ = try await devices.registerPushToken(Self.apns(token), options: owner.options)
        let response = try await devices.unregisterPushToken(.init(token: token), options: other.options)
        #expect(response.removed == false)
        #expect(try await devices.listMyPushTokens(options: owner.options).tokens.map(\.token) == [token])
        #expect(try await Self.activeTokens(harness, [owner]).map(\.token) == [token])
        await harness.stop()
    }

    // MARK: - Races

    /// Two accounts register one token at once, several times over: each round ends with one
    /// row, active, held by one of them.
    @Test func register_sameTokenConcurrentlyByTwoAccounts_endsWithOneOwnerAndOneActiveRow() async throws {
        let harness = try await Self.start()
        let devices = DevicesClient(client: harness.rpc)
        let first = try await Self.signIn(harness)
        let second = try await Self.signIn(harness)
        for _ in 0..<8 {
            let token = Self.apnsToken()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for member in [first, second] {
                    group.addTask {
                        _ = try await devices.registerPushToken(Self.apns(token, device: "shared-\(member.accountID)"),
                                                                options: member.options)
                    }
                }
                try await group.waitForAll()
            }
            let rows = try await harness.pool.withConnection { connection in
                try await connection.query("SELECT account_id, active FROM identity.push_tokens WHERE token = $1", [.text(token)])
            }
            #expect(rows.count == 1)
            let owner = try rows[0].decode(0, as: UUID.self).uuidString.lowercased()
            #expect(try rows[0].decode(1, as: Bool.self))
            #expect([first.accountID, second.accountID].contains(owner))
            let holders = try await Self.activeTokens(harness, [first, second]).filter { $0.token == token }
            #expect(holders.map(\.accountID) == [owner])
        }
        await harness.stop()
    }

    /// One account registers many devices at once: the active limit still holds.
    @Test func register_manyDevicesConcurrently_keepsTheActiveLimit() async throws {
        let harness = try await Self.start { $0.devices.maxActiveTokensPerAccount = 3 }
        let devices = DevicesClient(client: harness.rpc)
        let member = try await Self.signIn(harness)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    _ = try await devices.registerPushToken(Self.apns(Self.apnsToken(), device: "device-\(index)"),
                                                            options: member.options)
                }
            }
            try await group.waitForAll()
        }
        #expect(try await Self.activeTokens(harness, [member]).count == 3)
        await harness.stop()
    }
}
