import Contracts
import CryptoCore
import Foundation
import Postgres
import RPC
import Testing
import TestSupport

/// Push over the wire: real identity, discovery and two messaging instances sending to a fake
/// APNs that checks the provider token and headers and answers as Apple does.
@Suite(.serialized, .pushServices) struct PushTests {
    @Test func aMessage_isPushedToTheOtherMember_withTheAppsTopicAndPayload() async throws {
        let (members, fake) = try await Self.setUp()
        defer { members.close() }
        let ana = try await members.join()
        let ben = try await members.join()
        let anaToken = try await Self.register(ana, members)
        let benToken = try await Self.register(ben, members)
        let id = try await members.match(ana, ben)
        // Both hear of the match.
        for token in [anaToken, benToken] {
            let pushes = try await fake.waitFor(token) { $0.contains { $0.category == "match" } }
            let match = try #require(pushes.first { $0.category == "match" })
            #expect(match.payload["deep_link"]?.stringValue == "swivo://conversation/\(id)")
            #expect(match.collapseID == "match-\(id)")
        }
        let sent = try await members.send("Tacos tonight?", from: ana, in: id)
        let pushes = try await fake.waitFor(benToken) { $0.contains { $0.category == "message" } }
        let push = try #require(pushes.first { $0.category == "message" })
        #expect(push.topic == "com.example.swivo")
        #expect(push.pushType == "alert")
        #expect(push.priority == "10")
        #expect(push.collapseID == sent.sentID)
        #expect(push.alertBody == "Tacos tonight?")
        #expect(push.aps["thread-id"]?.stringValue == id)
        #expect(push.aps["sound"]?.stringValue == "default")
        #expect(push.payload["deep_link"]?.stringValue == "swivo://conversation/\(id)")
        #expect(push.status == 200)
        // The sender's own devices get no push for their message.
        #expect(!fake.requests(to: anaToken).contains { $0.category == "message" })

        // The delivery log keeps the token's last 8 characters only, with APNs's id.
        try await members.waitUntil("the delivery is logged") {
            try await Self.deliveries(of: ben, members).contains { $0.status == "delivered" && $0.category == 2 }
        }
        let logged = try #require(try await Self.deliveries(of: ben, members).first { $0.category == 2 })
        #expect(logged.suffix == String(benToken.suffix(8)))
        #expect(logged.apnsID == push.apnsID)
        #expect(logged.attempts == 1)
    }

    @Test(arguments: [(410, "Unregistered", Devices.PushTokenInactiveReason.unregistered),
                      (400, "BadDeviceToken", .badDeviceToken),
                      (400, "DeviceTokenNotForTopic", .notForTopic)])
    func aRefusedToken_isMarkedInactiveInIdentity(status: Int, reason: String,
                                                   expected: Devices.PushTokenInactiveReason) async throws {
        let (members, fake) = try await Self.setUp()
        defer { members.close() }
        let ana = try await members.join()
        let ben = try await members.join()
        let token = try await Self.register(ben, members)
        fake.script(token, [.error(status, reason)])
        _ = try await members.match(ana, ben)
        _ = try await fake.waitFor(token) { $0.contains { $0.status == status } }
        try await members.waitUntil("identity marks the token inactive") {
            let mine = try await DevicesClient(client: members.identity.client).listMyPushTokens(options: ben.bearer)
            return mine.tokens.first { $0.token == token }?.active == false
        }
        let mine = try await DevicesClient(client: members.identity.client).listMyPushTokens(options: ben.bearer)
        #expect(mine.tokens.first { $0.token == token }?.inactiveReason == expected)
        try await members.waitUntil("the refusal is logged") {
            try await Self.deliveries(of: ben, members).contains { $0.status == (status == 410 ? "unregistered" : "bad_token") }
        }
        // Not retried: one request only.
        #expect(fake.requests(to: token).count == 1)
    }

    @Test func tooManyRequestsAndServerErrors_areRetriedWithBackoff_thenDelivered() async throws {
        let (members, fake) = try await Self.setUp()
        defer { members.close() }
        let ana = try await members.join()
        let ben = try await members.join()
        let token = try await Self.register(ben, members)
        fake.script(token, [.error(429, "TooManyRequests"), .error(500, "InternalServerError"), .error(503, "ServiceUnavailable")])
        _ = try await members.match(ana, ben)
        let pushes = try await fake.waitFor(token) { $0.contains { $0.status == 200 } }
        #expect(pushes.map(\.status) == [429, 500, 503, 200])
        try await members.waitUntil("the delivery is logged") {
            try await Self.deliveries(of: ben, members).contains { $0.status == "delivered" && $0.attempts == 4 }
        }
    }

    @Test func anAPNsOutagePastTheRetries_isSentAgainOnceAPNsAnswers_once() async throws {
        // Five 503s use up the sender's attempts (RV_APNS_MAX_ATTEMPTS, default 5): the push
        // waits in the queue and goes out on a later pass, once, instead of being dropped.
        let (members, fake) = try await Self.setUp()
        defer { members.close() }
        let ana = try await members.join()
        let ben = try await members.join()
        let token = try await Self.register(ben, members)
        fake.script(token, Array(repeating: .error(503, "ServiceUnavailable"), count: 5))
        _ = try await members.match(ana, ben)
        let pushes = try await fake.waitFor(token, timeout: .seconds(30)) { $0.contains { $0.status == 200 } }
        #expect(pushes.map(\.status) == [503, 503, 503, 503, 503, 200])
        try await members.waitUntil("the delivery is logged once") {
            try await Self.deliveries(of: ben, members).map(\.status) == ["delivered"]
        }
        try await Task.sleep(for: .seconds(2))
        #expect(fake.requests(to: token).filter { $0.status == 200 }.count == 1)
    }

    @Test func aDeliveryLogTheDatabaseRefused_isWrittenOnceItAccepts_andThePushNotSentTwice() async throws {
        // As while Postgres restarts: the push is sent, then its delivery cannot be logged for a
        // moment. The worker must log it once it can, not leave the job to a second send after
        // its lease (120 s) runs out.
        let (members, fake) = try await Self.setUp()
        defer { members.close() }
        let ana = try await members.join()
        let ben = try await members.join()
        let token = try await Self.register(ben, members)
        try await Self.privilege("REVOKE INSERT ON messaging.push_deliveries FROM rv_messaging", members)
        do {
            _ = try await members.match(ana, ben)
            _ = try await fake.waitFor(token) { $0.contains { $0.status == 200 } }
            try await Task.sleep(for: .seconds(1))
        } catch {
            try await Self.privilege("GRANT INSERT ON messaging.push_deliveries TO rv_messaging", members)
            throw error
        }
        try await Self.privilege("GRANT INSERT ON messaging.push_deliveries TO rv_messaging", members)
        try await members.waitUntil("the delivery is logged") {
            try await Self.deliveries(of: ben, members).map(\.status) == ["delivered"]
        }
        #expect(fake.requests(to: token).filter { $0.status == 200 }.count == 1)
    }

    static func privilege(_ statement: String, _ members: MessagingMembers) async throws {
        _ = try await members.admin.withConnection { try await $0.execute(statement) }
    }

    @Test func preferences_turnACategoryOff_andQuietHoursMakePushesSilent() async throws {
        let (members, fake) = try await Self.setUp()
        defer { members.close() }
        let ana = try await members.join()
        let ben = try await members.join()
        let token = try await Self.register(ben, members)
        let push = PushClient(client: members.messaging[1].client)

        let defaults = try await push.getPushPreferences(options: ben.bearer)
        #expect(defaults.categories.count == 9)
        #expect(defaults.categories.filter { !$0.enabled }.map(\.category) == [.episodePublished])

        var off = Push.SetPushPreferencesRequest()
        off.categories = [Push.CategoryPreference(category: .message, enabled: false)]
        let changed = try await push.setPushPreferences(off, options: ben.bearer)
        #expect(changed.categories.first { $0.category == .message }?.enabled == false)
        #expect(changed.categories.first { $0.category == .match }?.enabled == true)

        let id = try await members.match(ana, ben)
        let muted = try await members.send("you will not hear this", from: ana, in: id)
        // A change applies to what is planned after it: let planning pass the muted message first.
        try await members.waitUntil("push planning passes the muted message") {
            try await members.admin.withConnection { connection in
                try await connection.query("""
                    SELECT (SELECT cursor FROM messaging.event_cursors WHERE source = 'push-realtime')
                           >= (SELECT max(cursor) FROM messaging.realtime WHERE aggregate_id = $1)
                    """, [.text(ben.id)])[0].decode(0, as: Bool.self)
            }
        }
        var on = Push.SetPushPreferencesRequest()
        on.categories = [Push.CategoryPreference(category: .message, enabled: true)]
        // Quiet all day long in UTC: pushes still come, silently.
        on.quietHours = Push.QuietHours(startMinute: 0, endMinute: 1439, utcOffsetMinutes: 0)
        _ = try await push.setPushPreferences(on, options: ben.bearer)
        let heard = try await members.send("but this one", from: ana, in: id)

        let pushes = try await fake.waitFor(token) { $0.contains { $0.collapseID == heard.sentID } }
        #expect(!pushes.contains { $0.collapseID == muted.sentID })
        let quiet = try #require(pushes.first { $0.collapseID == heard.sentID })
        #expect(quiet.aps["interruption-level"]?.stringValue == "passive")
        #expect(quiet.aps["sound"] == nil)
        // Planning is in stream order: the later message's job exists, so the muted one's was decided.
        let jobs = try await members.admin.withConnection { connection in
            try await connection.query("SELECT reference FROM messaging.push_jobs WHERE account_id = $1::uuid",
                                       [.text(ben.id)]).map { try $0.decode(0, as: String.self) }
        }
        #expect(jobs.contains(heard.sentID))
        #expect(!jobs.contains(muted.sentID))

        // Bad input is refused with a reason.
        var unknown = Push.SetPushPreferencesRequest()
        unknown.categories = [Push.CategoryPreference(category: .unspecified, enabled: true)]
        #expect(await reason { _ = try await push.setPushPreferences(unknown, options: ben.bearer) }?.reason == "INVALID_PUSH_CATEGORY")
        var twice = Push.SetPushPreferencesRequest()
        twice.categories = [Push.CategoryPreference(category: .match, enabled: true),
                            Push.CategoryPreference(category: .match, enabled: false)]
        #expect(await reason { _ = try await push.setPushPreferences(twice, options: ben.bearer) }?.reason == "INVALID_PUSH_CATEGORY")
        var hours = Push.SetPushPreferencesRequest()
        hours.quietHours = Push.QuietHours(startMinute: 0, endMinute: 1440, utcOffsetMinutes: 0)
        #expect(await reason { _ = try await push.setPushPreferences(hours, options: ben.bearer) }?.reason == "INVALID_QUIET_HOURS")
        #expect(await reason { _ = try await push.getPushPreferences() }?.code == .unauthenticated)
    }

    @Test func theProviderToken_isReusedAcrossPushes_andReplacedWhenAPNsSaysItExpired() async throws {
        let (members, fake) = try await Self.setUp()
        defer { members.close() }
        let ana = try await members.join()
        let ben = try await members.join()
        let token = try await Self.register(ben, members)
        let id = try await members.match(ana, ben)
        for (index, instance) in [0, 1, 0, 1, 0, 1].enumerated() {
            _ = try await members.send("reuse \(index)", from: ana, in: id, instance: instance)
        }
        let before = try await fake.waitFor(token) { $0.filter { $0.category == "message" }.count == 6 }
        // One token per messaging instance at most, however many pushes.
        #expect(Set(before.map(\.bearer)).count <= 2)
        #expect(before.allSatisfy { $0.status == 200 })

        let seenBefore = Set(fake.allRequests.map(\.bearer))
        fake.expireProviderTokens()
        defer { fake.acceptExpiredProviderTokens() }
        // Either instance may work a job, and only one that sent before holds an expired token:
        // push until one of those answers 403 (each push is delivered in any case).
        var tries: [FakeAPNs.Request] = []
        for index in 0..<40 {
            let after = try await members.send("after expiry \(index)", from: ana, in: id).sentID
            let pushes = try await fake.waitFor(token) { $0.contains { $0.collapseID == after && $0.status == 200 } }
            tries = pushes.filter { $0.collapseID == after }
            if tries.first?.status == 403 { break }
        }
        #expect(tries.map(\.status) == [403, 200])
        let refused = try #require(tries.first)
        let delivered = try #require(tries.last)
        #expect(seenBefore.contains(refused.bearer))
        #expect(!seenBefore.contains(delivered.bearer))
        #expect(delivered.issuedAt >= before.map(\.issuedAt).max() ?? 0)
    }

    @Test func twoInstances_sendEachPushOnce() async throws {
        let (members, fake) = try await Self.setUp()
        defer { members.close() }
        let ana = try await members.join()
        let ben = try await members.join()
        let token = try await Self.register(ben, members)
        let id = try await members.match(ana, ben)
        let sent = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<30 {
                group.addTask { try await members.send("burst \(index)", from: ana, in: id, instance: index % 2).sentID }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        let pushes = try await fake.waitFor(token) { pushes in
            Set(sent).isSubset(of: Set(pushes.filter { $0.status == 200 }.compactMap { $0.collapseID }))
        }
        // Each sent once, and accepted.
        let messagePushes = pushes.filter { $0.category == "message" }.compactMap { $0.collapseID }
        #expect(pushes.allSatisfy { $0.status == 200 })
        #expect(messagePushes.count == sent.count)
        #expect(Set(messagePushes) == Set(sent))
        // Each job leased once, finished, one delivery each (logged just after APNs answered).
        try await members.waitUntil("every job is finished") {
            try await members.admin.withConnection { connection in
                try await connection.query("""
                    SELECT count(*) FILTER (WHERE done_at IS NULL) = 0 FROM messaging.push_jobs
                    WHERE account_id = $1::uuid AND category = 2
                    """, [.text(ben.id)])[0].decode(0, as: Bool.self)
            }
        }
        let rows = try await members.admin.withConnection { connection in
            try await connection.query("""
                SELECT j.leases, j.done_at IS NOT NULL, (SELECT count(*) FROM messaging.push_deliveries d WHERE d.job_id = j.id)
                FROM messaging.push_jobs j WHERE j.account_id = $1::uuid AND j.category = 2
                """, [.text(ben.id)])
        }
        #expect(rows.count == sent.count)
        for row in rows {
            #expect(try row.decode(0, as: Int32.self) == 1)
            #expect(try row.decode(1, as: Bool.self))
            #expect(try row.decode(2, as: Int64.self) == 1)
        }
    }

    /// An event in messaging's realtime outbox whose payload does not decode (a bug's, or one
    /// written by hand) is passed over, not retried forever: the message after it is pushed.
    @Test func anEventThatDoesNotDecode_isPassedOver_andTheMessageAfterItIsPushed() async throws {
        let (members, fake) = try await Self.setUp()
        defer { members.close() }
        let ana = try await members.join()
        let ben = try await members.join()
        let benToken = try await Self.register(ben, members)
        let id = try await members.match(ana, ben)
        _ = try await fake.waitFor(benToken) { $0.contains { $0.category == "match" } }
        try await members.appendUndecodableEvent(for: ben)
        let sent = try await members.send("Still on for tonight?", from: ana, in: id)
        let pushes = try await fake.waitFor(benToken) { $0.contains { $0.collapseID == sent.sentID } }
        #expect(pushes.filter { $0.category == "message" }.map(\.alertBody) == ["Still on for tonight?"])
    }

    @Test func aReferralCodeUsed_isPushedToItsOwner() async throws {
        let (members, fake) = try await Self.setUp()
        defer { members.close() }
        let signedUp = try await members.identity.signUpWithEmail(
            .init(app: "elite", email: "\(TestDatabase.uniqueName("push"))@example.com", password: "correct horse battery staple",
                  deviceName: "tests"))
        let ownerID = try #require(signedUp.account).id
        _ = try await members.admin.withConnection { connection in
            try await connection.execute("UPDATE identity.accounts SET membership_status = 'active' WHERE id = $1::uuid",
                                         [.text(ownerID)])
        }
        let session = try await members.identity.refreshSession(.init(refreshToken: signedUp.refreshToken))
        let owner = Member(id: ownerID, app: "elite", token: session.accessToken, refreshToken: session.refreshToken)
        let token = try await Self.register(owner, members)
        let code = try await MembershipClient(client: members.identity.client).createReferralCode(.init(), options: owner.bearer)
        var request = Identity.SignUpWithEmailRequest(app: "elite", email: "\(TestDatabase.uniqueName("push"))@example.com",
                                                      password: "correct horse battery staple")
        request.referralCode = code.code
        _ = try await members.identity.signUpWithEmail(request)

        let pushes = try await fake.waitFor(token) { $0.contains { $0.category == "referral_used" } }
        let push = try #require(pushes.first { $0.category == "referral_used" })
        #expect(push.topic == "com.example.elite")
        #expect(push.payload["deep_link"]?.stringValue == "elite://referrals")
    }

    @Test func aDeletedAccount_leavesNoPushDataBehind() async throws {
        let (members, fake) = try await Self.setUp()
        defer { members.close() }
        let ana = try await members.join()
        let ben = try await members.join()
        let token = try await Self.register(ben, members)
        var quiet = Push.SetPushPreferencesRequest()
        quiet.categories = [Push.CategoryPreference(category: .referralUsed, enabled: false)]
        quiet.quietHours = Push.QuietHours(startMinute: 1320, endMinute: 420, utcOffsetMinutes: 60)
        _ = try await PushClient(client: members.messaging[0].client).setPushPreferences(quiet, options: ben.bearer)
        _ = try await members.match(ana, ben)
        _ = try await fake.waitFor(token) { $0.contains { $0.category == "match" } }
        try await members.waitUntil("the match push is logged") { !(try await Self.deliveries(of: ben, members).isEmpty) }

        _ = try await members.identity.deleteAccount(.init(), options: ben.bearer)
        try await members.waitUntil("messaging forgets the account's push data") {
            try await members.admin.withConnection { connection in
                try await connection.query("""
                    SELECT (SELECT count(*) FROM messaging.push_categories WHERE account_id = $1::uuid)
                         + (SELECT count(*) FROM messaging.push_quiet_hours WHERE account_id = $1::uuid)
                         + (SELECT count(*) FROM messaging.push_jobs WHERE account_id = $1::uuid)
                         + (SELECT count(*) FROM messaging.push_deliveries WHERE account_id = $1::uuid)
                    """, [.text(ben.id)])[0].decode(0, as: Int64.self) == 0
            }
        }
    }

    @Test func aJobWhoseLeaseRanOut_isSentOnlyToTheTokensNotYetLogged() async throws {
        // As if an instance crashed mid-job: the lease has passed, one token was already sent to.
        let (members, fake) = try await Self.setUp()
        defer { members.close() }
        let ben = try await members.join()
        let sent = try await Self.register(ben, members)
        let unsent = try await Self.register(ben, members)
        let payload = Array(#"{"aps":{"alert":{"title":"t","body":"b"},"category":"message"}}"#.utf8)
        let source = "test:\(UUID().uuidString)"
        // One transaction: the job must not be leased before its delivery is logged.
        try await members.admin.withTransaction { connection in
            let job: Int64 = try await connection.query("""
                INSERT INTO messaging.push_jobs (source, account_id, app, category, reference, payload, collapse_id, priority,
                                                 expires_at, available_at, leases)
                VALUES ($1, $2::uuid, 'swivo', 2, 'crash', $3, $1, 10, now() + interval '1 hour', now() - interval '1 second', 1)
                RETURNING id
                """, [.text(source), .text(ben.id), .bytea(payload)])[0].decode(0)
            _ = try await connection.execute("""
                INSERT INTO messaging.push_deliveries (job_id, account_id, app, category, token_suffix, token_sha256, environment,
                                                       status, http_status, attempts)
                VALUES ($1, $2::uuid, 'swivo', 2, right($3, 8), sha256(convert_to($3, 'UTF8')), 'sandbox', 'delivered', 200, 1)
                """, [.int64(job), .text(ben.id), .text(sent)])
        }
        _ = try await fake.waitFor(unsent) { $0.contains { $0.collapseID == source } }
        try await members.waitUntil("the job is finished") {
            try await members.admin.withConnection { connection in
                try await connection.query("SELECT done_at IS NOT NULL FROM messaging.push_jobs WHERE source = $1",
                                           [.text(source)])[0].decode(0, as: Bool.self)
            }
        }
        #expect(!fake.requests(to: sent).contains { $0.collapseID == source })
        #expect(fake.requests(to: unsent).filter { $0.collapseID == source }.count == 1)
    }

    @Test func anUnreadableKey_stopsStartUp_namingTheSetting() async throws {
        let result = try await Subprocess.run(try RepositoryPaths.builtExecutable("messaging"), [], environment: [
            "RV_MESSAGING_PORT": "0", "RV_MESSAGING_ADMIN_PORT": "0",
            "RV_PG_URL_MESSAGING": DiscoveryStack.postgresURL(role: "messaging"), "RV_LOG_LEVEL": "warning",
            "RV_APNS_KEY_FILE": "/nonexistent/AuthKey.p8", "RV_APNS_KEY_ID": "KEY1234567", "RV_APNS_TEAM_ID": "TEAM123456",
        ], timeout: .seconds(30))
        #expect(result.exitCode != 0)
        #expect(result.output.contains("RV_APNS_KEY_FILE"))
    }

    // MARK: - Helpers

    static func setUp() async throws -> (MessagingMembers, FakeAPNs) {
        (try await MessagingMembers.make(), try PushHarness.running)
    }

    /// Registers a fresh APNs sandbox token for `member`; returns it (lower-case hex).
    static func register(_ member: Member, _ members: MessagingMembers) async throws -> String {
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        var request = Devices.RegisterPushTokenRequest()
        request.token = token
        request.platform = .apns
        request.environment = .sandbox
        request.deviceID = "device-\(UUID().uuidString)"
        _ = try await DevicesClient(client: members.identity.client).registerPushToken(request, options: member.bearer)
        return token
    }

    struct Logged {
        var category: Int16
        var status: String
        var suffix: String
        var attempts: Int32
        var apnsID: String?
    }

    static func deliveries(of member: Member, _ members: MessagingMembers) async throws -> [Logged] {
        try await members.admin.withConnection { connection in
            try await connection.query("""
                SELECT category, status, token_suffix, attempts, apns_id FROM messaging.push_deliveries
                WHERE account_id = $1::uuid ORDER BY id
                """, [.text(member.id)]).map { row in
                Logged(category: try row.decode(0), status: try row.decode(1), suffix: try row.decode(2),
                       attempts: try row.decode(3), apnsID: try row.decode(4))
            }
        }
    }
}


extension Messaging.SendMessageResponse {
    /// The stored message's id.
    var sentID: String { message?.messageID ?? "" }
}
