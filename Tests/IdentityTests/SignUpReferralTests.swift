import Contracts
import Foundation
@testable import Identity
import Postgres
import RPC
import Testing

/// A member's referral code given at sign-up (ÉLITE): the new account starts active in the
/// same transaction, and a code that cannot be redeemed creates nothing.
@Suite struct SignUpReferralTests {
    @Test func signUpWithEmail_withAMembersCode_startsActive_andTheReferrerIsTold() async throws {
        let harness = try await IdentityHarness.start()
        let referrer = try await harness.member("elite")
        let code = try await harness.membership.createReferralCode(.init(), options: .bearer(referrer.accessToken))
        var request = Identity.SignUpWithEmailRequest(app: "elite", email: IdentityHarness.uniqueEmail(),
                                                      password: "correct horse battery")
        request.referralCode = code.code.lowercased()
        let session = try await harness.client.signUpWithEmail(request)
        #expect(session.account?.membershipStatus == "active")
        #expect(try accessTokenClaims(session.accessToken).string("ms") == "active")

        let referrerID = try #require(referrer.account?.id)
        let used = try await harness.events("ReferralUsed", about: referrerID, as: Membership.ReferralUsed.self)
        #expect(used.map(\.redeemerAccountID) == [session.account?.id])
        let created = try await harness.events("AccountCreated", about: session.account?.id ?? "", as: Identity.Account.self)
        #expect(created.count == 1)
        await harness.stop()
    }

    @Test func signUpWithEmail_withAnUnusableCode_failsWithItsReason_andCreatesNoAccount() async throws {
        let harness = try await IdentityHarness.start()
        let referrer = try await harness.member("elite")
        let code = try await harness.membership.createReferralCode(.init(), options: .bearer(referrer.accessToken))
        let first = try await harness.signUp("elite")
        _ = try await harness.membership.redeemReferralCode(.init(code: code.code), options: .bearer(first.accessToken))

        let email = IdentityHarness.uniqueEmail()
        var request = Identity.SignUpWithEmailRequest(app: "elite", email: email, password: "correct horse battery")
        request.referralCode = code.code
        let used = await rpcError { _ = try await harness.client.signUpWithEmail(request) }
        #expect(used?.code == .failedPrecondition && used?.reason == "REFERRAL_CODE_USED")
        request.referralCode = "ZZZZZZ"
        let unknown = await rpcError { _ = try await harness.client.signUpWithEmail(request) }
        #expect(unknown?.code == .notFound && unknown?.reason == "REFERRAL_CODE_NOT_FOUND")

        // Nothing was created: the same email signs up without a code and waits for the committee.
        request.referralCode = ""
        let later = try await harness.client.signUpWithEmail(request)
        #expect(later.account?.membershipStatus == "waitlisted")
        await harness.stop()
    }

    @Test func signUp_withACode_inAnAppWithoutMemberReferrals_isRefused() async throws {
        let harness = try await IdentityHarness.start()
        var request = Identity.SignUpWithEmailRequest(app: "firstdate", email: IdentityHarness.uniqueEmail(),
                                                      password: "correct horse battery")
        request.referralCode = "ABCDEF"
        let refused = await rpcError { _ = try await harness.client.signUpWithEmail(request) }
        #expect(refused?.code == .failedPrecondition && refused?.reason == "REFERRALS_NOT_OFFERED")
        await harness.stop()
    }
}
