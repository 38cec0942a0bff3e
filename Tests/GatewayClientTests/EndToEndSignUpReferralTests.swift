import Contracts
import Foundation
import GatewayClient
import Testing

/// A member's referral code given at an ÉLITE sign-up through any method, against the identity
/// executable through GatewayClient: the new account starts active (not waitlisted), and a
/// spent code refuses the sign-up without creating anything.
@Suite(.identityService, .timeLimit(.minutes(2)))
struct EndToEndSignUpReferralTests {
    /// An active ÉLITE member (an admin, made by an operator, is one) and a code of theirs.
    static func code(_ users: EndToEndUsers) async throws -> String {
        let member = try await users.signUp("elite", role: "admin")
        return try await member.client.membership.createReferralCode().code
    }

    @Test func appleSignUp_withAMembersCode_startsActive_andTheSpentCodeRefusesTheNext() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let code = try await Self.code(users)

        let client = try EndToEnd.client(app: "elite")
        defer { client.close() }
        let nonce = ProviderNonce()
        let token = try ProviderTokens.shared.es256(ProviderTokens.apple(subject: ProviderTokens.uniqueSubject(), app: "elite",
                                                                         nonce: nonce))
        let account = try await client.identity.signInWithProvider(.apple, idToken: token, rawNonce: nonce.raw,
                                                                   referralCode: code)
        #expect(account.membershipStatus == "active")

        let late = try EndToEnd.client(app: "elite")
        defer { late.close() }
        let lateNonce = ProviderNonce()
        let lateSubject = ProviderTokens.uniqueSubject()
        let lateToken = try ProviderTokens.shared.es256(ProviderTokens.apple(subject: lateSubject, app: "elite", nonce: lateNonce))
        let refused = await gatewayError {
            _ = try await late.identity.signInWithProvider(.apple, idToken: lateToken, rawNonce: lateNonce.raw, referralCode: code)
        }
        #expect(refused?.code == .failedPrecondition && refused?.reason == "REFERRAL_CODE_USED")
        #expect(try late.currentSession() == nil)
        // Nothing was created: the same Apple ID without a code joins the waitlist as a new account.
        let againNonce = ProviderNonce()
        let waiting = try await late.identity.signInWithProvider(
            .apple, idToken: try ProviderTokens.shared.es256(ProviderTokens.apple(subject: lateSubject, app: "elite", nonce: againNonce)),
            rawNonce: againNonce.raw)
        #expect(waiting.membershipStatus == "waitlisted")
    }

    @Test func phoneSignUp_withAMembersCode_startsActive() async throws {
        let users = EndToEndUsers()
        defer { users.close() }
        let code = try await Self.code(users)
        let phone = EndToEnd.uniquePhone()
        let client = try EndToEnd.client(app: "elite")
        defer { client.close() }
        _ = try await client.identity.startPhoneSignIn(phone)
        let sent = try #require(try EndToEnd.identity.phoneCode(for: phone))
        let account = try await client.identity.verifyPhoneCode(sent, phone: phone, referralCode: code.lowercased())
        #expect(account.membershipStatus == "active" && account.phone == phone)
        #expect(try client.currentSession()?.accountID == account.id)
    }
}
