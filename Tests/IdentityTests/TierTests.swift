import Contracts
import CryptoCore
import Foundation
@testable import Identity
import Postgres
import RPC
import Runtime
import Testing

/// Tiers and entitlements, App Store signed transactions and the admin's SetTier, over a live
/// socket. Signed transactions come from a test CA shaped like Apple's (root → intermediate →
/// leaf), whose root the harness trusts.
@Suite struct TierTests {
    static let plus = "com.elite.dating.plus.monthly"
    static let black = "com.elite.dating.black.monthly"

    /// Signs App Store transactions with a fresh test chain.
    struct AppStore {
        let chain: TestCertificates.Chain

        init(chain: TestCertificates.Chain? = nil) throws {
            self.chain = try chain ?? TestCertificates.makeChain()
        }

        /// A harness trusting this chain's root.
        func harness() async throws -> IdentityHarness {
            let root = chain.rootPEM
            return try await IdentityHarness.start { $0.appStoreRootsPEM = root }
        }

        func sign(_ claims: JWTClaims) throws -> String {
            let key = try ECSigningKey(pem: chain.leafPrivateKeyPEM)
            let x5c = chain.chainDER.map { JSONValue.string(Data($0).base64EncodedString()) }
            return try JWS.sign(header: ["x5c": .array(x5c)], payload: claims.serialized(), key: key)
        }
    }

    /// A StoreKit 2 transaction payload (Apple's JWSTransactionDecodedPayload fields).
    static func transaction(product: String = plus, id: String = uniqueTransactionID(), original: String? = nil,
                            expires: Date = Date().addingTimeInterval(30 * 86_400), bundle: String = "com.elite.dating",
                            environment: String = "Production", revoked: Date? = nil,
                            appAccountToken: String? = nil) -> JWTClaims {
        var claims: JWTClaims = [
            "transactionId": .string(id), "originalTransactionId": .string(original ?? id), "bundleId": .string(bundle),
            "productId": .string(product), "environment": .string(environment), "type": "Auto-Renewable Subscription",
            "purchaseDate": .integer(milliseconds(Date())), "signedDate": .integer(milliseconds(Date())),
            "expiresDate": .integer(milliseconds(expires)),
        ]
        if let revoked { claims["revocationDate"] = .integer(milliseconds(revoked)) }
        if let appAccountToken { claims["appAccountToken"] = .string(appAccountToken) }
        return claims
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    static func uniqueTransactionID() -> String { String(UInt64.random(in: 1_000_000_000_000...9_999_999_999_999_999)) }

    // MARK: - Tiers and entitlements

    @Test func listTiers_isPublic_eliteHasFreePlusBlackFromTheSeed() async throws {
        let harness = try await IdentityHarness.start()
        let tiers = try await harness.membership.listTiers(.init(app: "elite")).tiers
        #expect(tiers.map(\.name) == ["free", "plus", "black"])
        #expect(tiers.map(\.rank) == [0, 1, 2])
        let free = try #require(tiers[0].entitlements)
        #expect(free.likesPerDay == 5 && free.superLikesPerDay == 0 && free.seeWhoLikedYou == .blurred)
        #expect(free.referralCodesPerMonth == 3 && !free.readReceipts && !free.incognito)
        let plus = try #require(tiers[1].entitlements)
        #expect(plus.likesPerDay == Membership.Entitlements.unlimited && plus.superLikesPerDay == 3)
        #expect(plus.seeWhoLikedYou == .clear && plus.readReceipts && plus.advancedFilters && plus.priorityInDiscovery)
        #expect(plus.referralCodesPerMonth == 5 && !plus.incognito)
        // Video calling is ÉLITE BLACK's alone.
        #expect(!free.videoCalls && !plus.videoCalls)
        let black = try #require(tiers[2].entitlements)
        #expect(black.incognito && black.boostsPerMonth == 4 && black.referralCodesPerMonth == 10 && black.videoCalls)
        #expect(tiers[1].displayName == "ÉLITE+" && tiers[2].displayName == "ÉLITE BLACK")

        let firstdate = try await harness.membership.listTiers(.init(app: "firstdate")).tiers
        #expect(firstdate.map(\.name) == ["free"] && firstdate[0].entitlements?.superLikesPerDay == 1)
        let unknown = await rpcError { _ = try await harness.membership.listTiers(.init(app: "nope")) }
        #expect(unknown?.code == .invalidArgument && unknown?.reason == "UNKNOWN_APP")
        await harness.stop()
    }

    @Test func everyStandardApp_defaultTierOfItsPolicy_isItsLowestTier() async throws {
        let harness = try await IdentityHarness.start()
        for app in AppPolicies.standard.appIDs.sorted() {
            let tiers = try await harness.membership.listTiers(.init(app: app)).tiers
            #expect(tiers.first?.name == (try AppPolicies.standard.policy(for: app).defaultTier), "app \(app)")
        }
        await harness.stop()
    }

    @Test func getMyEntitlements_newMember_isTheDefaultTier_andNeedsAToken() async throws {
        let harness = try await IdentityHarness.start()
        let member = try await harness.signUp("elite")
        let mine = try await harness.membership.getMyEntitlements(options: .bearer(member.accessToken))
        #expect(mine.tier?.name == "free" && mine.tier?.entitlements?.likesPerDay == 5 && mine.expiresAt == nil)
        let anonymous = await rpcError { _ = try await harness.membership.getMyEntitlements(options: .init()) }
        #expect(anonymous?.code == .unauthenticated)
        await harness.stop()
    }

    @Test func anAppWithoutTiersInTheTable_isFree_andEntitledToNothing() async throws {
        let app = try IdentityHarness.ownApp(like: "firstdate")
        let harness = try await IdentityHarness.start(adding: [app])
        let member = try await harness.signUp(app.id)
        #expect(member.account?.tier == "free")
        let mine = try await harness.membership.getMyEntitlements(options: .bearer(member.accessToken))
        #expect(mine.tier?.name == "free" && mine.tier?.entitlements == nil)
        #expect(try await harness.membership.listTiers(.init(app: app.id)).tiers.isEmpty)
        await harness.stop()
    }

    // MARK: - App Store

    @Test func appStore_validTransaction_grantsItsTier_untilItsExpiry_andTheTokenCarriesItAfterRefresh() async throws {
        let store = try AppStore()
        let harness = try await store.harness()
        let member = try await harness.member("elite")
        let expires = Date().addingTimeInterval(30 * 86_400)
        let claims = Self.transaction(product: Self.black, expires: expires, appAccountToken: member.account?.id.uppercased())
        let applied = try await harness.membership.applyAppStoreTransaction(
            .init(signedTransaction: try store.sign(claims)), options: .bearer(member.accessToken))
        #expect(applied.grantedTier == "black" && applied.productID == Self.black)
        #expect(applied.transactionID == claims.string("transactionId"))
        #expect(applied.expiresAt?.seconds == Self.milliseconds(expires) / 1000)
        #expect(applied.entitlements?.tier?.name == "black" && applied.entitlements?.tier?.entitlements?.incognito == true)
        #expect(applied.entitlements?.expiresAt?.seconds == Self.milliseconds(expires) / 1000)

        let account = try await harness.client.getAccount(options: .bearer(member.accessToken))
        #expect(account.tier == "black")
        let refreshed = try await harness.client.refreshSession(.init(refreshToken: member.refreshToken))
        #expect(try accessTokenClaims(refreshed.accessToken).string("tier") == "black")
        let events = try await harness.events("TierChanged", about: account.id, as: Membership.TierChanged.self)
        #expect(events.map(\.tier) == ["black"] && events.first?.previousTier == "free")
        await harness.stop()
    }

    @Test func appStore_sameTransactionTwice_sameResult_noDuplicate() async throws {
        let store = try AppStore()
        let harness = try await store.harness()
        let member = try await harness.member("elite")
        let request = Membership.ApplyAppStoreTransactionRequest(signedTransaction: try store.sign(Self.transaction()))
        let first = try await harness.membership.applyAppStoreTransaction(request, options: .bearer(member.accessToken))
        let again = try await harness.membership.applyAppStoreTransaction(request, options: .bearer(member.accessToken))
        #expect(first == again && first.grantedTier == "plus")
        // Concurrent replays too.
        try await withThrowingTaskGroup(of: Membership.ApplyAppStoreTransactionResponse.self) { group in
            for _ in 0..<3 {
                group.addTask { try await harness.membership.applyAppStoreTransaction(request, options: .bearer(member.accessToken)) }
            }
            for try await response in group { #expect(response == first) }
        }
        let rows = try await harness.pool.withConnection { connection in
            try await connection.query("SELECT count(*) FROM identity.app_store_transactions WHERE transaction_id = $1",
                                       [.text(first.transactionID)])[0].decode(0, as: Int.self)
        }
        #expect(rows == 1)
        let events = try await harness.events("TierChanged", about: member.account?.id ?? "", as: Membership.TierChanged.self)
        #expect(events.count == 1)
        await harness.stop()
    }

    @Test func appStore_subscriptionAppliedByOneAccount_isRefusedToAnother() async throws {
        let store = try AppStore()
        let harness = try await store.harness()
        let owner = try await harness.member("elite")
        let thief = try await harness.member("elite")
        let original = Self.uniqueTransactionID()
        let bought = try store.sign(Self.transaction(original: original))
        _ = try await harness.membership.applyAppStoreTransaction(.init(signedTransaction: bought), options: .bearer(owner.accessToken))
        let stolen = await rpcError {
            _ = try await harness.membership.applyAppStoreTransaction(.init(signedTransaction: bought),
                                                                      options: .bearer(thief.accessToken))
        }
        #expect(stolen?.code == .permissionDenied && stolen?.reason == "TRANSACTION_BOUND_TO_ANOTHER_ACCOUNT")
        // A renewal of the same subscription is the owner's too.
        let renewal = try store.sign(Self.transaction(original: original))
        let renewed = await rpcError {
            _ = try await harness.membership.applyAppStoreTransaction(.init(signedTransaction: renewal),
                                                                      options: .bearer(thief.accessToken))
        }
        #expect(renewed?.reason == "TRANSACTION_BOUND_TO_ANOTHER_ACCOUNT")
        // A purchase made for another account (StoreKit's appAccountToken) is refused outright.
        let forOwner = try store.sign(Self.transaction(appAccountToken: owner.account?.id))
        let token = await rpcError {
            _ = try await harness.membership.applyAppStoreTransaction(.init(signedTransaction: forOwner),
                                                                      options: .bearer(thief.accessToken))
        }
        #expect(token?.code == .permissionDenied && token?.reason == "TRANSACTION_FOR_ANOTHER_ACCOUNT")
        let thiefTier = try await harness.membership.getMyEntitlements(options: .bearer(thief.accessToken))
        #expect(thiefTier.tier?.name == "free")
        await harness.stop()
    }

    @Test func appStore_chainToAnotherRoot_orTamperedPayload_isUntrusted() async throws {
        let store = try AppStore()
        let harness = try await store.harness()
        let member = try await harness.member("elite")
        let stranger = try AppStore()
        let foreign = try stranger.sign(Self.transaction())
        let parts = try store.sign(Self.transaction(product: Self.plus)).split(separator: ".").map(String.init)
        let upgraded = Base64URL.encode(Self.transaction(product: Self.black).serialized())
        let tampered = [parts[0], upgraded, parts[2]].joined(separator: ".")
        for token in [foreign, tampered] {
            let error = await rpcError {
                _ = try await harness.membership.applyAppStoreTransaction(.init(signedTransaction: token),
                                                                          options: .bearer(member.accessToken))
            }
            #expect(error?.code == .invalidArgument && error?.reason == "UNTRUSTED_TRANSACTION")
        }
        // A leaf certificate past its validity is not trusted either.
        let expiredLeaf = try AppStore(chain: TestCertificates.makeChain(leafNotBefore: -3 * 86_400, leafNotAfter: -86_400))
        let late = try await expiredLeaf.harness()
        let lateMember = try await late.member("elite")
        let error = await rpcError {
            _ = try await late.membership.applyAppStoreTransaction(
                .init(signedTransaction: try expiredLeaf.sign(Self.transaction())), options: .bearer(lateMember.accessToken))
        }
        #expect(error?.reason == "UNTRUSTED_TRANSACTION")
        await late.stop()
        // Nor is a chain to the trusted root whose certificates lack the App Store's markers:
        // anyone holding such a certificate (Apple issues others under its root) could sign.
        let unmarked = try AppStore(chain: TestCertificates.makeChain(appStoreMarkers: false))
        let other = try await unmarked.harness()
        let otherMember = try await other.member("elite")
        let forged = await rpcError {
            _ = try await other.membership.applyAppStoreTransaction(
                .init(signedTransaction: try unmarked.sign(Self.transaction(product: Self.black))), options: .bearer(otherMember.accessToken))
        }
        #expect(forged?.reason == "UNTRUSTED_TRANSACTION")
        await other.stop()
        await harness.stop()
    }

    @Test(arguments: ["not a jws", "e30.e30.e30", ""])
    func appStore_garbage_isMalformed(_ token: String) async throws {
        let store = try AppStore()
        let harness = try await store.harness()
        let member = try await harness.member("elite")
        let error = await rpcError {
            _ = try await harness.membership.applyAppStoreTransaction(.init(signedTransaction: token),
                                                                      options: .bearer(member.accessToken))
        }
        #expect(error?.code == .invalidArgument && error?.reason == "MALFORMED_TRANSACTION")
        await harness.stop()
    }

    @Test func appStore_signedPayloadMissingFields_orWithoutX5C_isMalformed() async throws {
        let store = try AppStore()
        let harness = try await store.harness()
        let member = try await harness.member("elite")
        var noExpiry = Self.transaction()
        noExpiry["expiresDate"] = nil
        var textDate = Self.transaction()
        textDate["signedDate"] = "yesterday"
        var badToken = Self.transaction()
        badToken["appAccountToken"] = "not-a-uuid"
        let key = try ECSigningKey(pem: store.chain.leafPrivateKeyPEM)
        let tokens = [
            try store.sign(noExpiry), try store.sign(textDate), try store.sign(badToken),
            try JWS.sign(payload: Self.transaction().serialized(), key: key),
            String(repeating: "a", count: MembershipService.maximumSignedTransactionBytes + 1),
        ]
        for token in tokens {
            let error = await rpcError {
                _ = try await harness.membership.applyAppStoreTransaction(.init(signedTransaction: token),
                                                                          options: .bearer(member.accessToken))
            }
            #expect(error?.code == .invalidArgument && error?.reason == "MALFORMED_TRANSACTION")
        }
        await harness.stop()
    }

    @Test func appStore_policyChecks_bundleProductEnvironmentExpiry() async throws {
        let store = try AppStore()
        let harness = try await store.harness()
        let member = try await harness.member("elite")
        let cases: [(JWTClaims, StatusCode, String)] = [
            (Self.transaction(bundle: "com.other.app"), .invalidArgument, "WRONG_BUNDLE_ID"),
            (Self.transaction(product: "com.elite.dating.coins"), .invalidArgument, "UNKNOWN_PRODUCT"),
            (Self.transaction(environment: "Sandbox"), .failedPrecondition, "WRONG_ENVIRONMENT"),
            (Self.transaction(expires: Date().addingTimeInterval(-60)), .failedPrecondition, "TRANSACTION_EXPIRED"),
            (Self.transaction(revoked: Date()), .failedPrecondition, "TRANSACTION_REVOKED"),
        ]
        for (claims, code, reason) in cases {
            let error = await rpcError {
                _ = try await harness.membership.applyAppStoreTransaction(.init(signedTransaction: try store.sign(claims)),
                                                                          options: .bearer(member.accessToken))
            }
            #expect(error?.code == code && error?.reason == reason, "\(reason)")
        }
        let tier = try await harness.membership.getMyEntitlements(options: .bearer(member.accessToken))
        #expect(tier.tier?.name == "free")
        await harness.stop()
    }

    @Test func appStore_sandboxAccepted_whenConfigured_andAppsWithoutItOrServerWithoutRoots_refuse() async throws {
        let store = try AppStore()
        let root = store.chain.rootPEM
        let sandbox = try await IdentityHarness.start {
            $0.appStoreRootsPEM = root
            $0.appStoreEnvironments = ["Production", "Sandbox"]
        }
        let member = try await sandbox.member("elite")
        let applied = try await sandbox.membership.applyAppStoreTransaction(
            .init(signedTransaction: try store.sign(Self.transaction(environment: "Sandbox"))), options: .bearer(member.accessToken))
        #expect(applied.grantedTier == "plus")
        let viewer = try await sandbox.signUp("firstdate")
        let notOffered = await rpcError {
            _ = try await sandbox.membership.applyAppStoreTransaction(
                .init(signedTransaction: try store.sign(Self.transaction())), options: .bearer(viewer.accessToken))
        }
        #expect(notOffered?.code == .failedPrecondition && notOffered?.reason == "APP_STORE_NOT_OFFERED")
        await sandbox.stop()

        let unconfigured = try await IdentityHarness.start()
        let other = try await unconfigured.member("elite")
        let error = await rpcError {
            _ = try await unconfigured.membership.applyAppStoreTransaction(
                .init(signedTransaction: try store.sign(Self.transaction())), options: .bearer(other.accessToken))
        }
        #expect(error?.code == .failedPrecondition && error?.reason == "APP_STORE_NOT_CONFIGURED")
        await unconfigured.stop()
    }

    @Test func appStore_revocationOfAnAppliedTransaction_withdrawsTheGrant_upgradeKeepsTheNewer() async throws {
        let store = try AppStore()
        let harness = try await store.harness()
        let member = try await harness.member("elite")
        let original = Self.uniqueTransactionID()
        let firstID = Self.uniqueTransactionID()
        _ = try await harness.membership.applyAppStoreTransaction(
            .init(signedTransaction: try store.sign(Self.transaction(product: Self.plus, id: firstID, original: original))),
            options: .bearer(member.accessToken))
        // An upgrade: a black transaction in the same subscription, and the plus one revoked.
        let upgrade = try await harness.membership.applyAppStoreTransaction(
            .init(signedTransaction: try store.sign(Self.transaction(product: Self.black, original: original,
                                                                     expires: Date().addingTimeInterval(31 * 86_400)))),
            options: .bearer(member.accessToken))
        #expect(upgrade.entitlements?.tier?.name == "black")
        let revokedPlus = await rpcError {
            _ = try await harness.membership.applyAppStoreTransaction(
                .init(signedTransaction: try store.sign(Self.transaction(product: Self.plus, id: firstID, original: original,
                                                                         revoked: Date()))),
                options: .bearer(member.accessToken))
        }
        #expect(revokedPlus?.reason == "TRANSACTION_REVOKED")
        #expect(try await harness.membership.getMyEntitlements(options: .bearer(member.accessToken)).tier?.name == "black")
        // A refund of the black one leaves nothing.
        let refund = await rpcError {
            _ = try await harness.membership.applyAppStoreTransaction(
                .init(signedTransaction: try store.sign(Self.transaction(product: Self.black, id: upgrade.transactionID,
                                                                         original: original, revoked: Date()))),
                options: .bearer(member.accessToken))
        }
        #expect(refund?.code == .failedPrecondition && refund?.reason == "TRANSACTION_REVOKED")
        #expect(try await harness.client.getAccount(options: .bearer(member.accessToken)).tier == "free")
        let events = try await harness.events("TierChanged", about: member.account?.id ?? "", as: Membership.TierChanged.self)
        #expect(events.map(\.tier) == ["plus", "black", "free"])
        await harness.stop()
    }

    @Test func appStore_expiry_fallsBackToFree_onReadAtOnce_andTheSweepWritesIt() async throws {
        let store = try AppStore()
        let harness = try await store.harness()
        let member = try await harness.member("elite")
        let expires = Date().addingTimeInterval(1.5)
        _ = try await harness.membership.applyAppStoreTransaction(
            .init(signedTransaction: try store.sign(Self.transaction(expires: expires))), options: .bearer(member.accessToken))
        #expect(try await harness.client.getAccount(options: .bearer(member.accessToken)).tier == "plus")
        try await Task.sleep(for: .milliseconds(Int(expires.timeIntervalSinceNow * 1000) + 200))

        // Before any sweep: reads and new tokens already show the default tier.
        #expect(try await harness.client.getAccount(options: .bearer(member.accessToken)).tier == "free")
        #expect(try await harness.membership.getMyEntitlements(options: .bearer(member.accessToken)).tier?.name == "free")
        let refreshed = try await harness.client.refreshSession(.init(refreshToken: member.refreshToken))
        #expect(try accessTokenClaims(refreshed.accessToken).string("tier") == "free")

        let swept = try await TierExpirySweep(pool: harness.pool, outbox: try Outbox(schema: "identity")).sweep()
        #expect(swept >= 1)
        let stored = try await harness.pool.withConnection { connection in
            try await connection.query("SELECT tier, tier_expires_at FROM identity.accounts WHERE id = $1",
                                       [.uuid(try IdentityHarness.id(member))])[0]
        }
        #expect(try stored.decode(0, as: String.self) == "free" && stored.decode(1, as: Date?.self) == nil)
        let events = try await harness.events("TierChanged", about: member.account?.id ?? "", as: Membership.TierChanged.self)
        #expect(events.map(\.tier) == ["plus", "free"] && events.last?.previousTier == "plus")
        await harness.stop()
    }

    @Test func appStoreSettings_readDERorPEMRoots_andEnvironments_refuseGarbage() throws {
        let chain = try TestCertificates.makeChain()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return url.path
        }
        func load(_ values: [String: String]) throws -> IdentitySettings {
            var settings = IdentitySettings(keyEncryptionKey: KeyEncryptionKey.developmentKey)
            try AppStoreSettings.load(from: EnvironmentReader(environment: Environment(values)), into: &settings)
            return settings
        }
        let variable = AppStoreSettings.rootsVariable
        let fromPEM = try load([variable: try write("root.pem", chain.rootPEM)])
        #expect(fromPEM.appStoreRootsPEM == chain.rootPEM && fromPEM.appStoreEnvironments == ["Production"])
        let fromDER = try load([variable: try write("root.cer", chain.chainDER[2]),
                                AppStoreSettings.environmentsVariable: "Production, Sandbox"])
        let roots = try #require(fromDER.appStoreRootsPEM)
        _ = try X509ChainVerifier.verify(chain: chain.chainDER, trustedRootsPEM: roots, at: nil)
        #expect(fromDER.appStoreEnvironments == ["Production", "Sandbox"])
        #expect(try load([:]).appStoreRootsPEM == nil)

        let garbage = [
            [variable: try write("key.pem", chain.leafPrivateKeyPEM)],
            [variable: try write("bad.der", [0x30, 0x03, 0x01, 0x02])],
            [variable: try write("bad.pem", Array("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8))],
            [variable: directory.appendingPathComponent("missing.pem").path],
            [AppStoreSettings.environmentsVariable: "Prod"],
        ]
        for values in garbage {
            #expect(throws: ConfigurationError.self, "\(values)") { try load(values) }
        }
    }

    @Test func deletingAnAccount_cascadesItsGrantsSubscriptionsAndCodes_andItsTokenIsRefused() async throws {
        let store = try AppStore()
        let harness = try await store.harness()
        let member = try await harness.member("elite")
        let original = Self.uniqueTransactionID()
        _ = try await harness.membership.applyAppStoreTransaction(
            .init(signedTransaction: try store.sign(Self.transaction(original: original))), options: .bearer(member.accessToken))
        let code = try await harness.membership.createReferralCode(.init(), options: .bearer(member.accessToken)).code
        let referrer = try await harness.member("elite")
        let used = try await harness.membership.createReferralCode(.init(), options: .bearer(referrer.accessToken)).code
        let waitlisted = try await harness.signUp("elite")
        _ = try await harness.membership.redeemReferralCode(.init(code: used), options: .bearer(waitlisted.accessToken))

        try await harness.execute("DELETE FROM identity.accounts WHERE id = ANY($1)",
                                  [.uuidArray([try IdentityHarness.id(member), try IdentityHarness.id(waitlisted)])])
        let left = try await harness.pool.withConnection { connection in
            try await connection.query("""
                SELECT (SELECT count(*) FROM identity.tier_grants WHERE account_id = $1),
                       (SELECT count(*) FROM identity.app_store_subscriptions WHERE original_transaction_id = $2),
                       (SELECT count(*) FROM identity.app_store_transactions WHERE original_transaction_id = $2),
                       (SELECT count(*) FROM identity.referral_codes WHERE code = $3 AND app = 'elite')
                """, [.uuid(try IdentityHarness.id(member)), .text(original), .text(code)])[0]
        }
        #expect(try (0..<4).map { try left.decode($0, as: Int.self) } == [0, 0, 0, 0])
        // The referrer's code stays used, by nobody now.
        let codes = try await harness.membership.listMyReferralCodes(options: .bearer(referrer.accessToken)).codes
        #expect(codes.first?.used == true && codes.first?.usedByAccountID == "")
        let gone = await rpcError { _ = try await harness.membership.getMyEntitlements(options: .bearer(member.accessToken)) }
        #expect(gone?.code == .unauthenticated && gone?.reason == "ACCOUNT_NOT_FOUND")
        let noGrant = await rpcError {
            _ = try await harness.membership.applyAppStoreTransaction(
                .init(signedTransaction: try store.sign(Self.transaction())), options: .bearer(member.accessToken))
        }
        #expect(noGrant?.code == .unauthenticated && noGrant?.reason == "ACCOUNT_NOT_FOUND")
        await harness.stop()
    }

    // MARK: - SetTier

    @Test func setTier_adminOnly_ofItsOwnApp_andHighestUnexpiredGrantWins() async throws {
        let store = try AppStore()
        let harness = try await store.harness()
        let admin = try await harness.admin("elite")
        let member = try await harness.member("elite")
        let memberID = try #require(member.account?.id)

        let notAdmin = await rpcError {
            _ = try await harness.membership.setTier(.init(accountID: memberID, tier: "black"), options: .bearer(member.accessToken))
        }
        #expect(notAdmin?.code == .permissionDenied && notAdmin?.reason == "ADMIN_ONLY")
        let otherAppsAdmin = try await harness.admin("momento")
        let elsewhere = await rpcError {
            _ = try await harness.membership.setTier(.init(accountID: memberID, tier: "black"),
                                                     options: .bearer(otherAppsAdmin.accessToken))
        }
        #expect(elsewhere?.code == .notFound && elsewhere?.reason == "MEMBER_NOT_FOUND")
        let unknownTier = await rpcError {
            _ = try await harness.membership.setTier(.init(accountID: memberID, tier: "gold"), options: .bearer(admin.accessToken))
        }
        #expect(unknownTier?.code == .invalidArgument && unknownTier?.reason == "UNKNOWN_TIER")
        let past = await rpcError {
            _ = try await harness.membership.setTier(.init(accountID: memberID, tier: "plus", expiresAt: Timestamp(seconds: 1)),
                                                     options: .bearer(admin.accessToken))
        }
        #expect(past?.code == .invalidArgument && past?.reason == "INVALID_EXPIRY")
        let badID = await rpcError {
            _ = try await harness.membership.setTier(.init(accountID: "nope", tier: "plus"), options: .bearer(admin.accessToken))
        }
        #expect(badID?.code == .invalidArgument && badID?.reason == "INVALID_ACCOUNT_ID")

        let set = try await harness.membership.setTier(.init(accountID: memberID, tier: "plus"), options: .bearer(admin.accessToken))
        #expect(set.tier == "plus" && set.expiresAt == nil && set.accountID == memberID)
        // A black subscription outranks the admin's plus; the admin's grant remains beneath it.
        _ = try await harness.membership.applyAppStoreTransaction(
            .init(signedTransaction: try store.sign(Self.transaction(product: Self.black))), options: .bearer(member.accessToken))
        #expect(try await harness.client.getAccount(options: .bearer(member.accessToken)).tier == "black")
        let downgrade = try await harness.membership.setTier(.init(accountID: memberID, tier: "free"),
                                                             options: .bearer(admin.accessToken))
        #expect(downgrade.tier == "black")
        await harness.stop()
    }

    @Test func setTier_withExpiry_fallsBackToTheNextHighestGrant() async throws {
        let store = try AppStore()
        let harness = try await store.harness()
        let admin = try await harness.admin("elite")
        let member = try await harness.member("elite")
        let memberID = try #require(member.account?.id)
        _ = try await harness.membership.applyAppStoreTransaction(
            .init(signedTransaction: try store.sign(Self.transaction(product: Self.plus))), options: .bearer(member.accessToken))
        let soon = Date().addingTimeInterval(1.5)
        let set = try await harness.membership.setTier(.init(accountID: memberID, tier: "black", expiresAt: Timestamp(soon)),
                                                       options: .bearer(admin.accessToken))
        #expect(set.tier == "black" && Self.isClose(set.expiresAt, soon))
        let mine = try await harness.membership.getMyEntitlements(options: .bearer(member.accessToken))
        #expect(mine.tier?.name == "black" && Self.isClose(mine.expiresAt, soon))
        try await Task.sleep(for: .milliseconds(Int(soon.timeIntervalSinceNow * 1000) + 200))
        #expect(try await harness.client.getAccount(options: .bearer(member.accessToken)).tier == "plus")
        let events = try await harness.events("TierChanged", about: memberID, as: Membership.TierChanged.self)
        #expect(events.map(\.tier) == ["plus", "black"])
        _ = try await TierExpirySweep(pool: harness.pool, outbox: try Outbox(schema: "identity")).sweep()
        let after = try await harness.events("TierChanged", about: memberID, as: Membership.TierChanged.self)
        #expect(after.map(\.tier) == ["plus", "black", "plus"])
        await harness.stop()
    }

    /// Whether `timestamp` is `date` to the millisecond (Postgres keeps microseconds).
    static func isClose(_ timestamp: Timestamp?, _ date: Date) -> Bool {
        guard let timestamp else { return false }
        let seconds = Double(timestamp.seconds) + Double(timestamp.nanos) / 1e9
        return abs(seconds - date.timeIntervalSince1970) < 0.001
    }
}
