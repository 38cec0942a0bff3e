import Contracts
import CryptoCore
import Foundation
import GatewayClient
import RPC
import Testing

/// Membership on the identity executable, driven only through GatewayClient: tiers before
/// sign-in, App Store purchases (signed by a test CA the executable is started to trust), the
/// admin's SetTier, ÉLITE referral codes at sign-up and by redemption, the committee's
/// waitlist, and FirstDate's public waitlist.
@Suite(.identityServiceTrustingTestAppStore, .timeLimit(.minutes(2)))
struct EndToEndMembershipTests {
    // MARK: Tiers

    @Test func listTiers_needsNoSession_andNamesEachTiersEntitlements() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let paywall = try users.signedOut("elite")
        let tiers = try await paywall.membership.listTiers()
        try #require(tiers.map(\.name) == ["free", "plus", "black"])
        #expect(tiers[1].displayName == "ÉLITE+" && tiers[2].displayName == "ÉLITE BLACK")
        #expect(tiers[2].entitlements?.incognito == true && tiers[0].entitlements?.incognito == false)
        #expect(try paywall.currentSession() == nil)

        let unknown = await gatewayError { _ = try await paywall.membership.listTiers(app: "no-such-app") }
        expectFailure(unknown, .invalidArgument, "UNKNOWN_APP")
    }

    @Test func anAppStorePurchase_grantsItsTier_entitlementsShowIt_andTheRefreshedTokenCarriesIt() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let member = try await users.signUp("elite")
        #expect(try member.tokenClaims().string("tier") == "free")
        let expires = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 30 * 86_400).rounded(.down))
        let signed = try TestAppStore.sign(TestAppStore.transaction(product: TestAppStore.black, expires: expires,
                                                                    appAccountToken: member.id))

        let applied = try await member.client.membership.applyAppStoreTransaction(signed)
        #expect(applied.grantedTier == "black" && applied.productID == TestAppStore.black)
        #expect(applied.expiresAt?.seconds == Int64(expires.timeIntervalSince1970))
        #expect(applied.entitlements?.tier?.name == "black")
        // The same purchase again (StoreKit replays unfinished transactions) is the same result.
        #expect(try await member.client.membership.applyAppStoreTransaction(signed) == applied)

        let mine = try await member.client.membership.getMyEntitlements()
        #expect(mine.tier?.name == "black" && mine.tier?.entitlements?.incognito == true)
        #expect(mine.expiresAt?.seconds == Int64(expires.timeIntervalSince1970))
        #expect(try await member.client.identity.getAccount().tier == "black")
        // The token issued before the purchase was refused as stale (TOKEN_STALE) on the next
        // call, which the client answered with one refresh: the token in hand carries the tier.
        #expect(try member.tokenClaims().string("tier") == "black")
        try await member.client.identity.refreshSession()
        #expect(try member.tokenClaims().string("tier") == "black")
    }

    @Test func anAppStorePurchase_thatCannotBeTrusted_orIsAnotherAccounts_orInAnAppWithoutOne_isRefused() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let member = try await users.signUp("elite")
        let other = try await users.signUp("elite")
        let stranger = try TestCertificates.makeChain()
        let foreign = try TestAppStore.sign(TestAppStore.transaction(), with: stranger)
        let untrusted = await gatewayError { _ = try await member.client.membership.applyAppStoreTransaction(foreign) }
        expectFailure(untrusted, .invalidArgument, "UNTRUSTED_TRANSACTION")

        let othersPurchase = try TestAppStore.sign(TestAppStore.transaction(appAccountToken: other.id))
        let notMine = await gatewayError { _ = try await member.client.membership.applyAppStoreTransaction(othersPurchase) }
        expectFailure(notMine, .permissionDenied, "TRANSACTION_FOR_ANOTHER_ACCOUNT")
        #expect(try await member.client.membership.getMyEntitlements().tier?.name == "free")

        let firstdate = try await users.signUp("firstdate")
        let noStore = await gatewayError {
            _ = try await firstdate.client.membership.applyAppStoreTransaction(try TestAppStore.sign(TestAppStore.transaction()))
        }
        expectFailure(noStore, .failedPrecondition, "APP_STORE_NOT_OFFERED")
    }

    @Test func setTier_byAnAdmin_grantsUntilItsExpiry_byAnyoneElse_isAdminOnly() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let member = try await users.signUp("elite")
        let admin = try await users.signUp("elite", role: "admin")
        let refused = await gatewayError { _ = try await member.client.membership.setTier(accountID: member.id, tier: "black") }
        expectFailure(refused, .permissionDenied, "ADMIN_ONLY")
        #expect(try await member.client.membership.getMyEntitlements().tier?.name == "free")

        let until = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 7 * 86_400).rounded(.down))
        let set = try await admin.client.membership.setTier(accountID: member.id, tier: "plus", expiresAt: until)
        #expect(set.accountID == member.id && set.tier == "plus" && set.expiresAt?.seconds == Int64(until.timeIntervalSince1970))
        let mine = try await member.client.membership.getMyEntitlements()
        #expect(mine.tier?.name == "plus" && mine.expiresAt?.seconds == Int64(until.timeIntervalSince1970))

        let unknown = await gatewayError { _ = try await admin.client.membership.setTier(accountID: member.id, tier: "gold") }
        expectFailure(unknown, .invalidArgument, "UNKNOWN_TIER")
        // The default tier removes the admin's grant.
        #expect(try await admin.client.membership.setTier(accountID: member.id, tier: "free").tier == "free")
        #expect(try await member.client.membership.getMyEntitlements().tier?.name == "free")
    }

    // MARK: Referral codes (ÉLITE)

    @Test func aMembersCode_letsANewcomerSignUpActive_once_thenItIsReferralCodeUsed() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let admin = try await users.signUp("elite", role: "admin")
        let member = try await users.signUp("elite")
        #expect(member.account.membershipStatus == "waitlisted")
        let notYet = await gatewayError { _ = try await member.client.membership.createReferralCode() }
        expectFailure(notYet, .failedPrecondition, "NOT_ACTIVE_MEMBER")
        try await admin.client.membership.approveMember(accountID: member.id)
        let code = try await member.client.membership.createReferralCode()
        #expect(code.code.count == 6 && !code.used)

        let newcomer = try users.signedOut("elite")
        let account = try await newcomer.identity.signUpWithEmail(EndToEnd.uniqueEmail(), password: EndToEndUsers.password,
                                                                  referralCode: code.code.lowercased())
        #expect(account.membershipStatus == "active")
        #expect(try await newcomer.identity.getAccount().membershipStatus == "active")
        let codes = try await member.client.membership.listMyReferralCodes()
        let used = try #require(codes.codes.first { $0.code == code.code })
        #expect(used.used && used.usedByAccountID == account.id && used.usedByUsername == account.username)
        #expect(codes.allowancePerMonth == 3 && codes.remainingThisMonth == 2)

        let late = try users.signedOut("elite")
        let email = EndToEnd.uniqueEmail()
        let second = await gatewayError {
            _ = try await late.identity.signUpWithEmail(email, password: EndToEndUsers.password, referralCode: code.code)
        }
        expectFailure(second, .failedPrecondition, "REFERRAL_CODE_USED")
        #expect(try late.currentSession() == nil)
        // Nothing was created: the same email signs up without a code, and waits.
        let waiting = try await late.identity.signUpWithEmail(email, password: EndToEndUsers.password)
        #expect(waiting.membershipStatus == "waitlisted")
    }

    @Test func aWaitlistedAccount_redeemsACode_andTheRefreshedTokenSaysActive() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let admin = try await users.signUp("elite", role: "admin")
        let member = try await users.signUp("elite")
        try await admin.client.membership.approveMember(accountID: member.id)
        let code = try await member.client.membership.createReferralCode()
        let waiting = try await users.signUp("elite")
        #expect(try waiting.tokenClaims().string("ms") == "waitlisted")

        #expect(try await waiting.client.membership.redeemReferralCode(" \(code.code) ") == "active")
        try await waiting.client.identity.refreshSession()
        #expect(try waiting.tokenClaims().string("ms") == "active")
        let again = await gatewayError { try await waiting.client.membership.redeemReferralCode(code.code) }
        expectFailure(again, .failedPrecondition, "NOT_WAITLISTED")
        let another = try await users.signUp("elite")
        let unknown = await gatewayError { try await another.client.membership.redeemReferralCode("ZZZZZZ") }
        expectFailure(unknown, .notFound, "REFERRAL_CODE_NOT_FOUND")
    }

    // MARK: The committee's waitlist (ÉLITE)

    @Test func aWaitlistedAccount_seesItsPosition_andAnAdminApprovesIt() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let admin = try await users.signUp("elite", role: "admin")
        let first = try await users.signUp("elite")
        let second = try await users.signUp("elite")
        let firstPlace = try await first.client.membership.getMyWaitlistPosition()
        let secondPlace = try await second.client.membership.getMyWaitlistPosition()
        #expect(firstPlace.position >= 1 && secondPlace.position > firstPlace.position)
        #expect(firstPlace.joinedAt == first.account.createdAt)

        let notAdmin = await gatewayError { _ = try await first.client.membership.listWaitlist() }
        expectFailure(notAdmin, .permissionDenied, "ADMIN_ONLY")
        let head = try await admin.client.membership.listWaitlist(pageSize: 3)
        #expect(head.members.map(\.position) == [1, 2, 3])

        let decision = try await admin.client.membership.approveMember(accountID: first.id)
        #expect(decision.accountID == first.id && decision.membershipStatus == "active")
        let gone = await gatewayError { _ = try await first.client.membership.getMyWaitlistPosition() }
        expectFailure(gone, .failedPrecondition, "NOT_WAITLISTED")
        #expect(try await second.client.membership.getMyWaitlistPosition().position < secondPlace.position)
        try await first.client.identity.refreshSession()
        #expect(try first.tokenClaims().string("ms") == "active")

        let twice = await gatewayError { try await admin.client.membership.approveMember(accountID: first.id) }
        expectFailure(twice, .failedPrecondition, "NOT_WAITLISTED")
        let rejected = try await admin.client.membership.rejectMember(accountID: second.id, reason: "Incomplete profile")
        #expect(rejected.membershipStatus == "rejected")
        #expect(try await second.client.identity.getAccount().membershipStatus == "rejected")
    }

    // MARK: The public waitlist (FirstDate)

    @Test func thePublicWaitlist_joinsByEmail_findsByEmailAndCode_andAReferralMovesUpFivePlaces() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let page = try users.signedOut("firstdate")
        var ahead: [(email: String, entry: Membership.WaitlistEntry)] = []
        for _ in 0..<5 {
            let email = EndToEnd.uniqueEmail()
            ahead.append((email, try await page.membership.joinWaitlist(email: email)))
        }
        let referrerEmail = EndToEnd.uniqueEmail()
        let referrer = try await page.membership.joinWaitlist(email: referrerEmail)
        let start = ahead[0].entry.position
        #expect(ahead.map(\.entry.position) + [referrer.position] == Array(start...(start + 5)))
        #expect(referrer.referralCode.count == 6 && referrer.referrals == 0)
        #expect(try page.currentSession() == nil)

        // Joining again is the same entry; reading needs the email and the entry's own code.
        #expect(try await page.membership.joinWaitlist(email: referrerEmail.uppercased()) == referrer)
        #expect(try await page.membership.getWaitlistPosition(email: referrerEmail, referralCode: referrer.referralCode) == referrer)
        let wrongCode = await gatewayError {
            _ = try await page.membership.getWaitlistPosition(email: referrerEmail, referralCode: ahead[0].entry.referralCode)
        }
        expectFailure(wrongCode, .notFound, "WAITLIST_ENTRY_NOT_FOUND")

        // A friend joins with the referrer's code: the referrer passes the five ahead of it.
        let friend = try await page.membership.joinWaitlist(email: EndToEnd.uniqueEmail(), referralCode: referrer.referralCode)
        #expect(friend.position == referrer.position + 1)
        let moved = try await page.membership.getWaitlistPosition(email: referrerEmail, referralCode: referrer.referralCode)
        #expect(moved.position == referrer.position - 5 && moved.referrals == 1)
        let passed = try await page.membership.getWaitlistPosition(email: ahead[0].email, referralCode: ahead[0].entry.referralCode)
        #expect(passed.position == ahead[0].entry.position + 1)

        // The count is for hosts.
        let viewer = try await users.signUp("firstdate")
        let refused = await gatewayError { _ = try await viewer.client.membership.getWaitlistCount() }
        expectFailure(refused, .permissionDenied, "ROLE_REQUIRED")
        let host = try await users.signUp("firstdate", role: "host")
        #expect(try await host.client.membership.getWaitlistCount() == Int64(friend.position))
    }
}

/// Signs StoreKit 2 transactions with a test chain shaped like Apple's (root → intermediate →
/// leaf); the suite's executable trusts its root.
enum TestAppStore {
    static let plus = "com.elite.dating.plus.monthly"
    static let black = "com.elite.dating.black.monthly"

    /// Made once per test process.
    static let chain = Result { try TestCertificates.makeChain() }

    /// The JWS StoreKit would hand the app, signed by `chain`'s leaf (or another chain's).
    static func sign(_ claims: JWTClaims, with other: TestCertificates.Chain? = nil) throws -> String {
        let chain = try other ?? Self.chain.get()
        let key = try ECSigningKey(pem: chain.leafPrivateKeyPEM)
        let x5c = chain.chainDER.map { JSONValue.string(Data($0).base64EncodedString()) }
        return try JWS.sign(header: ["x5c": .array(x5c)], payload: claims.serialized(), key: key)
    }

    /// A transaction payload (Apple's JWSTransactionDecodedPayload fields) for ÉLITE.
    static func transaction(product: String = plus, expires: Date = Date().addingTimeInterval(30 * 86_400),
                            appAccountToken: String? = nil) -> JWTClaims {
        let id = String(UInt64.random(in: 1_000_000_000_000...9_999_999_999_999_999))
        let now = milliseconds(Date())
        var claims: JWTClaims = [
            "transactionId": .string(id), "originalTransactionId": .string(id), "bundleId": "com.elite.dating",
            "productId": .string(product), "environment": "Production", "type": "Auto-Renewable Subscription",
            "purchaseDate": .integer(now), "signedDate": .integer(now), "expiresDate": .integer(milliseconds(expires)),
        ]
        if let appAccountToken { claims["appAccountToken"] = .string(appAccountToken) }
        return claims
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }
}

/// Starts the identity executable for the suite trusting `TestAppStore`'s root
/// (`RV_IDENTITY_APPSTORE_ROOT_CERT_FILE`, read once at start-up).
struct TrustingTestAppStoreTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let file = NSTemporaryDirectory() + "appstore-root-\(UUID().uuidString).pem"
        guard FileManager.default.createFile(atPath: file, contents: Data(try TestAppStore.chain.get().rootPEM)) else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await IdentityServiceTrait(environment: ["RV_IDENTITY_APPSTORE_ROOT_CERT_FILE": file])
            .provideScope(for: test, testCase: testCase, performing: function)
    }
}

extension Trait where Self == TrustingTestAppStoreTrait {
    /// Runs the suite against the `identity` executable, trusting `TestAppStore`.
    static var identityServiceTrustingTestAppStore: Self { TrustingTestAppStoreTrait() }
}
