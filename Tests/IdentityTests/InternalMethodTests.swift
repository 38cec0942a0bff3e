import Auth
import Contracts
import Foundation
@testable import Identity
import Postgres
import RPC
import Runtime
import TestSupport
import Testing

/// Identity's internal methods (DevicesInternal, WatchEvents) over the wire: only a configured
/// service with the right secret gets through, never an app with a user's token.
@Suite struct InternalMethodTests {
    typealias Messages = Devices

    static var messaging: ServiceCredential { DeviceTests.messaging }
    static var discovery: ServiceCredential { DeviceTests.discovery }

    static func expect(_ error: RPCError?, _ code: StatusCode, _ reason: String, _ comment: Comment? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.code == code && error?.reason == reason, comment, sourceLocation: sourceLocation)
    }

    // MARK: - DevicesInternal: who may call

    @Test func devicesInternal_onlyAConfiguredPushSenderWithItsSecret_getsThrough() async throws {
        let harness = try await DeviceTests.start()
        let internalClient = DevicesInternalClient(client: harness.rpc)
        let member = try await DeviceTests.signIn(harness)
        let token = DeviceTests.apnsToken()
        _ = try await DevicesClient(client: harness.rpc).registerPushToken(DeviceTests.apns(token), options: member.options)
        let list = Messages.ListActivePushTokensRequest(app: "swivo", accountIDs: [member.accountID])
        let mark = Messages.MarkPushTokenInactiveRequest(app: "swivo", token: token, reason: .unregistered)
        let wrongSecret = try ServiceCredential(name: "messaging", secret: String(repeating: "w", count: 40))
        let unknown = try ServiceCredential(name: "media", secret: String(repeating: "m", count: 40))

        let refusals: [(String, CallOptions, StatusCode, String)] = [
            ("no credential", CallOptions(), .unauthenticated, "MISSING_SERVICE_CREDENTIAL"),
            ("a user's bearer token", member.options, .unauthenticated, "MISSING_SERVICE_CREDENTIAL"),
            ("wrong secret", .service(wrongSecret), .unauthenticated, "BAD_SERVICE_CREDENTIAL"),
            ("unknown service", .service(unknown), .unauthenticated, "BAD_SERVICE_CREDENTIAL"),
            ("accepted service not granted push tokens", .service(Self.discovery), .permissionDenied, "SERVICE_NOT_ALLOWED"),
        ]
        for (name, options, code, reason) in refusals {
            let listed = await rpcError { _ = try await internalClient.listActivePushTokens(list, options: options) }
            Self.expect(listed, code, reason, "ListActivePushTokens, \(name)")
            let marked = await rpcError { _ = try await internalClient.markPushTokenInactive(mark, options: options) }
            Self.expect(marked, code, reason, "MarkPushTokenInactive, \(name)")
        }
        #expect(try await internalClient.listActivePushTokens(list, options: .service(Self.messaging)).tokens.map(\.token) == [token])
        #expect(try await internalClient.markPushTokenInactive(mark, options: .service(Self.messaging)).deactivated)
        await harness.stop()
    }

    @Test func devicesInternal_withNoCredentialsConfigured_refusesEveryCall() async throws {
        let harness = try await IdentityHarness.start()
        let error = await rpcError {
            _ = try await DevicesInternalClient(client: harness.rpc).listActivePushTokens(
                .init(app: "swivo", accountIDs: [UUID().uuidString]), options: .service(Self.messaging))
        }
        Self.expect(error, .unauthenticated, "BAD_SERVICE_CREDENTIAL")
        await harness.stop()
    }

    @Test func devicesInternal_callersAreConfigurable() async throws {
        let harness = try await DeviceTests.start { $0.devices.pushTokenCallers = ["discovery"] }
        let client = DevicesInternalClient(client: harness.rpc)
        let request = Messages.ListActivePushTokensRequest(app: "swivo", accountIDs: [UUID().uuidString])
        #expect(try await client.listActivePushTokens(request, options: .service(Self.discovery)).tokens.isEmpty)
        let error = await rpcError { _ = try await client.listActivePushTokens(request, options: .service(Self.messaging)) }
        Self.expect(error, .permissionDenied, "SERVICE_NOT_ALLOWED")
        #expect(DeviceSettings.callers(parsing: " messaging, discovery ,,") == ["messaging", "discovery"])
        await harness.stop()
    }

    // MARK: - ContactsInternal

    /// Over the limit is INVALID_ARGUMENT with the reason identity declares (the contract sweep
    /// found it answered without an ErrorInfo).
    @Test func matchContacts_overTheLimit_isTooManyValues_withTheMaximum() async throws {
        let harness = try await DeviceTests.start()
        let hashes = (0...ContactHashes.maximumPerCall).map { _ in String(repeating: "ab", count: 32) }
        let error = await rpcError {
            _ = try await ContactsInternalClient(client: harness.rpc).matchContacts(
                .init(app: "swivo", hashes: hashes), options: .service(Self.discovery))
        }
        Self.expect(error, .invalidArgument, "TOO_MANY_VALUES")
        #expect(error?.details["maximum"] == String(ContactHashes.maximumPerCall))
        await harness.stop()
    }

    // MARK: - ListActivePushTokens

    @Test func listActive_groupsByAccount_andSkipsInactiveUnknownAndOtherAppsAccounts() async throws {
        let harness = try await DeviceTests.start()
        let devices = DevicesClient(client: harness.rpc)
        let first = try await DeviceTests.signIn(harness)
        let second = try await DeviceTests.signIn(harness)
        let elsewhere = try await DeviceTests.signIn(harness, app: "unseen")
        let phone = DeviceTests.apnsToken()
        let tablet = DeviceTests.apnsToken()
        let dead = DeviceTests.apnsToken()
        _ = try await devices.registerPushToken(DeviceTests.apns(dead, device: "old"), options: first.options)
        _ = try await devices.registerPushToken(DeviceTests.apns(phone, device: "phone"), options: first.options)
        _ = try await devices.registerPushToken(DeviceTests.apns(tablet, device: "tablet"), options: second.options)
        _ = try await devices.registerPushToken(DeviceTests.apns(DeviceTests.apnsToken()), options: elsewhere.options)
        _ = try await DevicesInternalClient(client: harness.rpc).markPushTokenInactive(
            .init(app: "swivo", token: dead, reason: .badDeviceToken), options: .service(Self.messaging))

        let tokens = try await DeviceTests.activeTokens(
            harness, [first, second, elsewhere, first, DeviceTests.Member(accountID: UUID().uuidString, app: "swivo", options: .init())])
        #expect(Set(tokens.map(\.token)) == [phone, tablet])
        #expect(tokens.first { $0.token == phone }?.accountID == first.accountID)
        #expect(tokens.first { $0.token == tablet }?.accountID == second.accountID)
        #expect(tokens.allSatisfy { $0.app == "swivo" && $0.active && $0.platform == .apns })
        await harness.stop()
    }

    @Test func listActive_invalidRequests_areInvalidArgument() async throws {
        let harness = try await DeviceTests.start { $0.devices.maxAccountsPerLookup = 3 }
        let client = DevicesInternalClient(client: harness.rpc)
        let options = CallOptions.service(Self.messaging)
        let ids = (0..<4).map { _ in UUID().uuidString }
        let unknownApp = await rpcError { _ = try await client.listActivePushTokens(.init(app: "nope", accountIDs: ids), options: options) }
        Self.expect(unknownApp, .invalidArgument, "UNKNOWN_APP")
        let tooMany = await rpcError { _ = try await client.listActivePushTokens(.init(app: "swivo", accountIDs: ids), options: options) }
        Self.expect(tooMany, .invalidArgument, "TOO_MANY_ACCOUNTS")
        #expect(tooMany?.details["maximum"] == "3")
        let notUUID = await rpcError {
            _ = try await client.listActivePushTokens(.init(app: "swivo", accountIDs: ["not-a-uuid"]), options: options)
        }
        Self.expect(notUUID, .invalidArgument, "INVALID_ACCOUNT_ID")
        #expect(try await client.listActivePushTokens(.init(app: "swivo", accountIDs: []), options: options).tokens.isEmpty)
        await harness.stop()
    }

    // MARK: - MarkPushTokenInactive

    @Test func markInactive_deactivatesOnce_anyCase_andIgnoresUnknownTokens() async throws {
        let harness = try await DeviceTests.start()
        let client = DevicesInternalClient(client: harness.rpc)
        let member = try await DeviceTests.signIn(harness)
        let token = DeviceTests.apnsToken()
        _ = try await DevicesClient(client: harness.rpc).registerPushToken(DeviceTests.apns(token), options: member.options)
        let options = CallOptions.service(Self.messaging)
        #expect(try await client.markPushTokenInactive(.init(app: "unseen", token: token, reason: .unregistered), options: options)
            .deactivated == false, "another app's token of the same text is another token")
        #expect(try await client.markPushTokenInactive(.init(app: "swivo", token: token.uppercased(), reason: .notForTopic),
                                                       options: options).deactivated)
        #expect(try await client.markPushTokenInactive(.init(app: "swivo", token: token, reason: .unregistered), options: options)
            .deactivated == false)
        #expect(try await client.markPushTokenInactive(.init(app: "swivo", token: DeviceTests.fcmToken(), reason: .unregistered),
                                                       options: options).deactivated == false)
        let listed = try await DevicesClient(client: harness.rpc).listMyPushTokens(options: member.options).tokens
        #expect(listed.map(\.inactiveReason) == [.notForTopic])
        await harness.stop()
    }

    @Test func markInactive_tokenRegisteredAgainAfterInvalidSince_staysActive() async throws {
        let harness = try await DeviceTests.start()
        let client = DevicesInternalClient(client: harness.rpc)
        let member = try await DeviceTests.signIn(harness)
        let token = DeviceTests.apnsToken()
        let registered = try await DevicesClient(client: harness.rpc).registerPushToken(DeviceTests.apns(token), options: member.options)
        let seen = try #require(registered.lastSeenAt)
        let options = CallOptions.service(Self.messaging)
        let before = Timestamp(seconds: seen.seconds - 60)
        #expect(try await client.markPushTokenInactive(.init(app: "swivo", token: token, reason: .unregistered, invalidSince: before),
                                                       options: options).deactivated == false)
        #expect(try await DeviceTests.activeTokens(harness, [member]).map(\.token) == [token])
        let after = Timestamp(seconds: seen.seconds + 1)
        #expect(try await client.markPushTokenInactive(.init(app: "swivo", token: token, reason: .unregistered, invalidSince: after),
                                                       options: options).deactivated)
        await harness.stop()
    }

    @Test func markInactive_invalidRequests_areInvalidArgument() async throws {
        let harness = try await DeviceTests.start()
        let client = DevicesInternalClient(client: harness.rpc)
        let token = DeviceTests.apnsToken()
        let cases: [(String, Messages.MarkPushTokenInactiveRequest, String)] = [
            ("unknown app", .init(app: "nope", token: token, reason: .unregistered), "UNKNOWN_APP"),
            ("empty token", .init(app: "swivo", token: "", reason: .unregistered), "INVALID_PUSH_TOKEN"),
            ("token with a space", .init(app: "swivo", token: "ab cd", reason: .unregistered), "INVALID_PUSH_TOKEN"),
            ("no reason", .init(app: "swivo", token: token, reason: .unspecified), "INVALID_INACTIVE_REASON"),
            ("identity's own reason", .init(app: "swivo", token: token, reason: .replaced), "INVALID_INACTIVE_REASON"),
            ("unknown reason", .init(app: "swivo", token: token, reason: .init(rawValue: 42)), "INVALID_INACTIVE_REASON"),
            ("bad nanos", .init(app: "swivo", token: token, reason: .unregistered, invalidSince: Timestamp(seconds: 1, nanos: -1)),
             "INVALID_TIMESTAMP"),
            ("year 10000", .init(app: "swivo", token: token, reason: .unregistered,
                                 invalidSince: Timestamp(seconds: 253_402_300_800)), "INVALID_TIMESTAMP"),
        ]
        for (name, request, reason) in cases {
            let error = await rpcError { _ = try await client.markPushTokenInactive(request, options: .service(Self.messaging)) }
            Self.expect(error, .invalidArgument, reason, "\(name)")
        }
        await harness.stop()
    }

    // MARK: - WatchEvents

    /// Identity serves its events as `IdentityMain` assembles it: WatchEvents needs a service
    /// credential (any accepted service), and a user's token does not do.
    @Test func watchEvents_onIdentity_needsAServiceCredential() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "identity"))
        defer { pool.close() }
        _ = try await Migrator(schema: "identity", migrations: try IdentityMigrations.all()).migrate(pool)
        let outbox = try Outbox(schema: "identity")
        let notifier = try await OutboxNotifier(
            configuration: TestDatabase.configuration(role: "identity", applicationName: "rv-tests-identity-notifier"),
            channel: outbox.channel)
        defer { notifier.close() }
        var settings = IdentitySettings(keyEncryptionKey: KeyEncryptionKey.developmentKey)
        settings.serviceCredentials = ServiceCredentials([Self.messaging, Self.discovery])
        let identity = try await IdentityServer.make(
            pool: pool, settings: settings, extraServices: [EventStreamService(outbox: outbox, pool: pool, notifier: notifier)],
            extraInternalMethods: EventStreamService.internalMethods)
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let server = try RPCServer(configuration: configuration, services: identity.services, interceptors: identity.interceptors)
        try server.start()
        let rpc = RPCClient(host: "127.0.0.1", port: server.port)
        defer { rpc.close() }

        let last = try await pool.withConnection { connection in
            try await connection.query("SELECT coalesce(max(cursor), 0) FROM identity.outbox")[0].decode(0, as: Int64.self)
        }
        let request = Events.WatchEventsRequest(afterCursor: last, types: ["AccountCreated"])
        let session = try await IdentityClient(client: rpc).signInAnonymously(.init(app: "swivo"))

        for (options, reason) in [(CallOptions(), "MISSING_SERVICE_CREDENTIAL"),
                                  (CallOptions.bearer(session.accessToken), "MISSING_SERVICE_CREDENTIAL"),
                                  (CallOptions.service(try ServiceCredential(name: "discovery", secret: String(repeating: "x", count: 40))),
                                   "BAD_SERVICE_CREDENTIAL")] {
            let stream = try await rpc.serverStreaming(path: "/\(EventStreamClient.serviceName)/WatchEvents", request: request,
                                                       as: Events.Event.self, options: options)
            var received = 0
            do {
                for try await _ in stream { received += 1 }
            } catch {}
            #expect(received == 0)
            let status = await stream.status()
            Self.expect(status, .unauthenticated, reason)
        }

        let stream = try await rpc.serverStreaming(path: "/\(EventStreamClient.serviceName)/WatchEvents", request: request,
                                                   as: Events.Event.self, options: .service(Self.discovery))
        var found = false
        for try await event in stream where event.aggregateID == session.account?.id {
            found = true
            break
        }
        stream.cancel()
        #expect(found)
        await server.shutdown(gracePeriod: .milliseconds(200))
    }
}
