import Contracts
import Foundation
@testable import Identity
import Postgres
import RPC
import Runtime
import Testing

/// ÉLITE referral codes over a live socket: creation within the tier's monthly allowance,
/// listing, redemption by waitlisted accounts, every refusal, and the races.
@Suite struct ReferralTests {
    @Test func referralCodeFormat_isSixCharactersWithoutLookAlikes() throws {
        let codes = (0..<2000).map { _ in ReferralCodeFormat.make() }
        let allowed = Set("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
        for code in codes {
            #expect(code.count == 6 && code.allSatisfy(allowed.contains), "\(code)")
        }
        #expect(Set(codes.joined()).isDisjoint(with: "0O1IL"))
        // 2000 draws from 31⁶ codes: a repeat would mean the generator is broken.
        #expect(Set(codes).count == codes.count)
        #expect(try ReferralCodeFormat.normalize("  ext7k2\n") == "EXT7K2")
        for bad in ["", "EXT7K", "EXT7K22", "EXT0K2", "EXTIK2", "ELT7K2", "EX-7K2", "ÉXT7K2"] {
            #expect(throws: MembershipError.invalidReferralCode) { try ReferralCodeFormat.normalize(bad) }
        }
    }

    @Test func create_activeMember_getsCodes_listedWithTheAllowance() async throws {
        let harness = try await IdentityHarness.start()
        let member = try await harness.member("elite")
        let expiry = Timestamp(seconds: Int64(Date().timeIntervalSince1970) + 7 * 86_400)
        let first = try await harness.membership.createReferralCode(.init(expiresAt: expiry), options: .bearer(member.accessToken))
        let second = try await harness.membership.createReferralCode(.init(), options: .bearer(member.accessToken))
        #expect(first.code.count == 6 && first.code != second.code)
        #expect(first.expiresAt == expiry && second.expiresAt == nil && !first.used)
        let listed = try await harness.membership.listMyReferralCodes(options: .bearer(member.accessToken))
        #expect(Set(listed.codes.map(\.code)) == [first.code, second.code])
        #expect(listed.codes.allSatisfy { !$0.used && $0.usedByAccountID.isEmpty })
        #expect(listed.allowancePerMonth == 3 && listed.remainingThisMonth == 1)
        let resets = try #require(listed.allowanceResetsAt)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!  // Safe: UTC always exists.
        let resetDate = Date(timeIntervalSince1970: TimeInterval(resets.seconds))
        #expect(utc.component(.day, from: resetDate) == 1 && utc.component(.hour, from: resetDate) == 0)
        #expect(resetDate > Date() && resetDate < Date().addingTimeInterval(32 * 86_400))
        await harness.stop()
    }

    @Test func create_refusals_waitlistedAppWithoutReferralsPastExpiry() async throws {
        let harness = try await IdentityHarness.start()
        let waitlisted = try await harness.signUp("elite")
        let notActive = await rpcError {
            _ = try await harness.membership.createReferralCode(.init(), options: .bearer(waitlisted.accessToken))
        }
        #expect(notActive?.code == .failedPrecondition && notActive?.reason == "NOT_ACTIVE_MEMBER")
        let viewer = try await harness.signUp("firstdate")
        for call in [
            { _ = try await harness.membership.createReferralCode(.init(), options: .bearer(viewer.accessToken)) },
            { _ = try await harness.membership.listMyReferralCodes(options: .bearer(viewer.accessToken)) },
            { _ = try await harness.membership.redeemReferralCode(.init(code: "EXT7K2"), options: .bearer(viewer.accessToken)) },
        ] as [() async throws -> Void] {
            let error = await rpcError(call)
            #expect(error?.code == .failedPrecondition && error?.reason == "REFERRALS_NOT_OFFERED")
        }
        let member = try await harness.member("elite")
        let past = await rpcError {
            _ = try await harness.membership.createReferralCode(.init(expiresAt: Timestamp(seconds: 1_000)),
                                                                options: .bearer(member.accessToken))
        }
        #expect(past?.code == .invalidArgument && past?.reason == "INVALID_EXPIRY")
        await harness.stop()
    }

    @Test func create_concurrentlyBeyondTheAllowance_exactlyTheAllowanceSucceeds_andPlusGetsFive() async throws {
        let harness = try await IdentityHarness.start()
        let member = try await harness.member("elite")
        let results = await withTaskGroup(of: RPCError?.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    await rpcError { _ = try await harness.membership.createReferralCode(.init(), options: .bearer(member.accessToken)) }
                }
            }
            return await group.reduce(into: [RPCError?]()) { $0.append($1) }
        }
        #expect(results.filter { $0 == nil }.count == 3)
        for error in results.compactMap({ $0 }) {
            #expect(error.code == .resourceExhausted && error.reason == "REFERRAL_ALLOWANCE_EXHAUSTED")
            #expect(error.details["allowance"] == "3" && error.details["resets_at"] != nil)
        }
        // Plus allows 5 a month: two more now.
        let admin = try await harness.admin("elite")
        _ = try await harness.membership.setTier(.init(accountID: member.account?.id ?? "", tier: "plus"),
                                                 options: .bearer(admin.accessToken))
        for _ in 0..<2 {
            _ = try await harness.membership.createReferralCode(.init(), options: .bearer(member.accessToken))
        }
        let sixth = await rpcError { _ = try await harness.membership.createReferralCode(.init(), options: .bearer(member.accessToken)) }
        #expect(sixth?.reason == "REFERRAL_ALLOWANCE_EXHAUSTED" && sixth?.details["allowance"] == "5")
        // Codes from last month do not count.
        try await harness.execute("""
            UPDATE identity.referral_codes SET created_at = date_trunc('month', now()) - interval '1 day' WHERE owner_id = $1
            """, [.uuid(try IdentityHarness.id(member))])
        let listed = try await harness.membership.listMyReferralCodes(options: .bearer(member.accessToken))
        #expect(listed.codes.count == 5 && listed.remainingThisMonth == 5)
        await harness.stop()
    }

    @Test func redeem_byWaitlistedAccount_activatesIt_marksTheCodeUsed_andTellsTheReferrer() async throws {
        let harness = try await IdentityHarness.start()
        let referrer = try await harness.member("elite")
        let code = try await harness.membership.createReferralCode(.init(), options: .bearer(referrer.accessToken))
        let newcomer = try await harness.signUp("elite")
        #expect(newcomer.account?.membershipStatus == "waitlisted")
        let redeemed = try await harness.membership.redeemReferralCode(.init(code: " " + code.code.lowercased()),
                                                                       options: .bearer(newcomer.accessToken))
        #expect(redeemed.membershipStatus == "active")
        let refreshed = try await harness.client.refreshSession(.init(refreshToken: newcomer.refreshToken))
        #expect(refreshed.account?.membershipStatus == "active")
        #expect(try accessTokenClaims(refreshed.accessToken).string("ms") == "active")

        let listed = try await harness.membership.listMyReferralCodes(options: .bearer(referrer.accessToken)).codes
        let used = try #require(listed.first { $0.code == code.code })
        #expect(used.used && used.usedByAccountID == newcomer.account?.id && used.usedByUsername == newcomer.account?.username)
        #expect(used.usedAt != nil)

        let referrerID = try #require(referrer.account?.id)
        let referrals = try await harness.events("ReferralUsed", about: referrerID, as: Membership.ReferralUsed.self)
        #expect(referrals.count == 1 && referrals.first?.code == code.code)
        #expect(referrals.first?.redeemerAccountID == newcomer.account?.id && referrals.first?.usedAt == used.usedAt)
        let approvals = try await harness.events("MembershipApproved", about: newcomer.account?.id ?? "",
                                                 as: Membership.MembershipApproved.self)
        #expect(approvals.map(\.method) == [.referral] && approvals.first?.approvedByAccountID == referrerID)
        await harness.stop()
    }

    @Test func redeem_refusals_eachWithItsReason() async throws {
        let harness = try await IdentityHarness.start()
        let referrer = try await harness.member("elite")
        let fresh = { try await harness.membership.createReferralCode(.init(), options: .bearer(referrer.accessToken)).code }
        let waitlisted = try await harness.signUp("elite")
        let redeem = { (code: String, session: Identity.AuthSession) in
            await rpcError { _ = try await harness.membership.redeemReferralCode(.init(code: code), options: .bearer(session.accessToken)) }
        }

        let malformed = await redeem("NOPE!!", waitlisted)
        #expect(malformed?.code == .invalidArgument && malformed?.reason == "INVALID_REFERRAL_CODE")
        let unknown = await redeem("ZZZZZZ", waitlisted)
        #expect(unknown?.code == .notFound && unknown?.reason == "REFERRAL_CODE_NOT_FOUND")

        let expiring = try await fresh()
        try await harness.execute("UPDATE identity.referral_codes SET expires_at = now() - interval '1 second' WHERE code = $1",
                                  [.text(expiring)])
        let expired = await redeem(expiring, waitlisted)
        #expect(expired?.code == .failedPrecondition && expired?.reason == "REFERRAL_CODE_EXPIRED")

        let active = try await harness.member("elite")
        let notWaitlisted = await redeem(try await fresh(), active)
        #expect(notWaitlisted?.code == .failedPrecondition && notWaitlisted?.reason == "NOT_WAITLISTED")

        // The referrer's own code (it was active when it made it, and is on the waitlist again).
        let own = try await harness.member("elite")
        let ownCode = try await harness.membership.createReferralCode(.init(), options: .bearer(own.accessToken)).code
        try await harness.execute("UPDATE identity.accounts SET membership_status = 'waitlisted' WHERE id = $1",
                                  [.uuid(try IdentityHarness.id(own))])
        let ownError = await redeem(ownCode, own)
        #expect(ownError?.code == .failedPrecondition && ownError?.reason == "OWN_REFERRAL_CODE")

        // A suspended member's codes stop working.
        let suspended = try await harness.member("elite")
        let suspendedCode = try await harness.membership.createReferralCode(.init(), options: .bearer(suspended.accessToken)).code
        try await harness.execute("UPDATE identity.accounts SET membership_status = 'suspended' WHERE id = $1",
                                  [.uuid(try IdentityHarness.id(suspended))])
        let inactive = await redeem(suspendedCode, waitlisted)
        #expect(inactive?.code == .failedPrecondition && inactive?.reason == "REFERRER_NOT_ACTIVE")

        let code = try await fresh()
        _ = try await harness.membership.redeemReferralCode(.init(code: code), options: .bearer(waitlisted.accessToken))
        let second = try await harness.signUp("elite")
        let used = await redeem(code, second)
        #expect(used?.code == .failedPrecondition && used?.reason == "REFERRAL_CODE_USED")
        await harness.stop()
    }

    /// Codes are six letters of 31: guessing must stay slow. Ten unknown codes in an hour lock the
    /// account's redemptions, a real code included, and no other account's.
    @Test func redeem_tenUnknownCodes_lockTheAccount_notOthers() async throws {
        let harness = try await IdentityHarness.start()
        let referrer = try await harness.member("elite")
        let guesser = try await harness.signUp("elite")
        let redeem = { (code: String, session: Identity.AuthSession) in
            await rpcError { _ = try await harness.membership.redeemReferralCode(.init(code: code), options: .bearer(session.accessToken)) }
        }
        for guess in ["ZZZZZA", "ZZZZZB", "ZZZZZC", "ZZZZZD", "ZZZZZE", "ZZZZZF", "ZZZZZG", "ZZZZZH", "ZZZZZJ", "ZZZZZK"] {
            #expect(await redeem(guess, guesser)?.reason == "REFERRAL_CODE_NOT_FOUND")
        }
        let code = try await harness.membership.createReferralCode(.init(), options: .bearer(referrer.accessToken)).code
        let locked = await redeem(code, guesser)
        #expect(locked?.code == .resourceExhausted && locked?.reason == "TOO_MANY_ATTEMPTS")
        #expect(Int(locked?.details["retry_after_seconds"] ?? "") ?? 0 > 3_000)
        let other = try await harness.signUp("elite")
        let redeemed = try await harness.membership.redeemReferralCode(.init(code: code), options: .bearer(other.accessToken))
        #expect(redeemed.membershipStatus == "active")
        await harness.stop()
    }

    @Test func redeem_oneCodeByTwoAccountsAtOnce_exactlyOneWins() async throws {
        let harness = try await IdentityHarness.start()
        let referrer = try await harness.member("elite")
        for _ in 0..<3 {
            let code = try await harness.membership.createReferralCode(.init(), options: .bearer(referrer.accessToken)).code
            let first = try await harness.signUp("elite")
            let second = try await harness.signUp("elite")
            async let a = rpcError { _ = try await harness.membership.redeemReferralCode(.init(code: code), options: .bearer(first.accessToken)) }
            async let b = rpcError { _ = try await harness.membership.redeemReferralCode(.init(code: code), options: .bearer(second.accessToken)) }
            let errors = await [a, b]
            #expect(errors.filter { $0 == nil }.count == 1)
            let loser = try #require(errors.compactMap { $0 }.first)
            #expect(loser.code == .failedPrecondition && loser.reason == "REFERRAL_CODE_USED")
            let statuses = try await [harness.client.getAccount(options: .bearer(first.accessToken)).membershipStatus,
                                      harness.client.getAccount(options: .bearer(second.accessToken)).membershipStatus]
            #expect(statuses.sorted() == ["active", "waitlisted"])
        }
        let events = try await harness.events("ReferralUsed", about: referrer.account?.id ?? "", as: Membership.ReferralUsed.self)
        #expect(events.count == 3)
        await harness.stop()
    }

    @Test func redeem_twoCodesByOneAccountAtOnce_usesOnlyOne() async throws {
        let harness = try await IdentityHarness.start()
        let referrer = try await harness.member("elite")
        let one = try await harness.membership.createReferralCode(.init(), options: .bearer(referrer.accessToken)).code
        let two = try await harness.membership.createReferralCode(.init(), options: .bearer(referrer.accessToken)).code
        let newcomer = try await harness.signUp("elite")
        async let a = rpcError { _ = try await harness.membership.redeemReferralCode(.init(code: one), options: .bearer(newcomer.accessToken)) }
        async let b = rpcError { _ = try await harness.membership.redeemReferralCode(.init(code: two), options: .bearer(newcomer.accessToken)) }
        let errors = await [a, b]
        #expect(errors.filter { $0 == nil }.count == 1)
        #expect(errors.compactMap { $0 }.first?.reason == "NOT_WAITLISTED")
        let codes = try await harness.membership.listMyReferralCodes(options: .bearer(referrer.accessToken)).codes
        #expect(codes.filter(\.used).count == 1)
        await harness.stop()
    }

    /// Sign-up can redeem inside its own transaction: the account and the redemption commit
    /// together, or neither does.
    @Test func referralStore_redeem_runsInsideTheCallersTransaction() async throws {
        let harness = try await IdentityHarness.start()
        let referrer = try await harness.member("elite")
        let code = try await harness.membership.createReferralCode(.init(), options: .bearer(referrer.accessToken)).code
        let store = ReferralStore(outbox: try Outbox(schema: "identity"))
        let policy = try AppPolicies.standard.policy(for: "elite")

        struct Abort: Error {}
        await #expect(throws: Abort.self) {
            try await harness.pool.withTransaction { connection in
                let account = try await AccountStore.create(policy: policy, anonymous: false,
                                                            on: connection)
                try await store.redeem(code: code, account: try #require(UUID(uuidString: account.id)), on: connection)
                throw Abort()
            }
        }
        let stillUnused = try await harness.membership.listMyReferralCodes(options: .bearer(referrer.accessToken)).codes
        #expect(stillUnused.first { $0.code == code }?.used == false)

        let account = try await harness.pool.withTransaction { connection in
            let account = try await AccountStore.create(policy: policy, anonymous: false,
                                                        on: connection)
            try await store.redeem(code: code, account: try #require(UUID(uuidString: account.id)), on: connection)
            return account
        }
        let stored = try await harness.pool.withConnection { connection in
            try await AccountStore.find(id: try #require(UUID(uuidString: account.id)), app: "elite", on: connection)
        }
        #expect(stored?.membershipStatus == "active")
        await harness.stop()
    }
}

/// Unique usernames for accounts made directly through the stores.
enum TestNames {
    static func username() -> String { "u" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "") }
}
