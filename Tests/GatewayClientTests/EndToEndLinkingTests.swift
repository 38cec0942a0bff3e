import Contracts
import Foundation
import GatewayClient
import Testing

/// Linking a credential to the signed-in account against the identity executable, through
/// GatewayClient: an anonymous account that adds an email or an Apple ID can be signed in to
/// from a second device and is the same account; refused links leave the session as it was.
@Suite(.identityService, .timeLimit(.minutes(2)))
struct EndToEndLinkingTests {
    static let password = "correct horse battery staple"

    @Test func anAnonymousAccount_linkedToEmail_isTheAccountASecondDeviceSignsInTo() async throws {
        let email = EndToEnd.uniqueEmail()
        let phone = try EndToEnd.client(app: "swivo", deviceName: "phone")
        let laptop = try EndToEnd.client(app: "swivo", deviceName: "laptop")
        defer { phone.close(); laptop.close() }
        let anonymous = try await phone.identity.signInAnonymously()
        let session = try #require(try phone.currentSession())

        let linked = try await phone.identity.linkEmail(email, password: Self.password)
        #expect(linked.id == anonymous.id && linked.username == anonymous.username)
        #expect(!linked.anonymous && linked.email == email && linked.signInMethods == ["email"])
        // Linking keeps the device's session.
        #expect(try phone.currentSession() == session)

        let signedIn = try await laptop.identity.signInWithEmail(email, password: Self.password)
        #expect(signedIn.id == anonymous.id)
        #expect(try await phone.identity.getAccount().email == email)
        #expect(Set(try await laptop.identity.listSessions().map(\.deviceName)) == ["phone", "laptop"])
    }

    @Test func anAnonymousAccount_linkedToApple_isTheAccountAppleSignInFindsElsewhere() async throws {
        let subject = ProviderTokens.uniqueSubject()
        let phone = try EndToEnd.client(app: "unseen")
        let tablet = try EndToEnd.client(app: "unseen")
        defer { phone.close(); tablet.close() }
        let anonymous = try await phone.identity.signInAnonymously()

        let linkNonce = ProviderNonce()
        let linked = try await phone.identity.linkProvider(
            .apple, idToken: try ProviderTokens.shared.rs256(ProviderTokens.apple(subject: subject, app: "unseen", nonce: linkNonce)),
            rawNonce: linkNonce.raw)
        #expect(linked.id == anonymous.id && !linked.anonymous && linked.signInMethods == ["apple"])

        let signInNonce = ProviderNonce()
        let signedIn = try await tablet.identity.signInWithProvider(
            .apple, idToken: try ProviderTokens.shared.es256(ProviderTokens.apple(subject: subject, app: "unseen", nonce: signInNonce)),
            rawNonce: signInNonce.raw)
        #expect(signedIn.id == anonymous.id)
    }

    @Test func aRefusedIDToken_failsTheLink_withoutTouchingTheSession() async throws {
        let client = try EndToEnd.client(app: "swivo")
        defer { client.close() }
        _ = try await client.identity.signInAnonymously()
        let session = try #require(try client.currentSession())
        let nonce = ProviderNonce()
        let forged = try ProviderTokens.shared.forged(ProviderTokens.google(subject: ProviderTokens.uniqueSubject(), app: "swivo", nonce: nonce))

        let error = await gatewayError { _ = try await client.identity.linkProvider(.google, idToken: forged, rawNonce: nonce.raw) }
        #expect(error?.code == .unauthenticated && error?.reason == "ID_TOKEN_BAD_SIGNATURE")
        // Not taken for a refused access token: no refresh, the same tokens, still anonymous.
        #expect(try client.currentSession() == session)
        #expect(try await client.identity.getAccount().anonymous)
    }

    @Test func aPhoneLinked_withTheCodeSent_afterAWrongCodeThatSpentOneAttemptOnly() async throws {
        let email = EndToEnd.uniqueEmail()
        let number = EndToEnd.uniquePhone()
        let client = try EndToEnd.client(app: "elite")
        defer { client.close() }
        let account = try await client.identity.signUpWithEmail(email, password: Self.password)
        let session = try #require(try client.currentSession())
        _ = try await client.identity.startPhoneSignIn(number)
        let code = try #require(try EndToEnd.identity.phoneCode(for: number))

        let wrong = await gatewayError { _ = try await client.identity.linkPhone(number, code: EndToEndPhoneSignInTests.wrong(code)) }
        #expect(wrong?.code == .unauthenticated && wrong?.reason == "INVALID_CODE")
        #expect(wrong?.details["attempts_remaining"] == "4")
        #expect(try client.currentSession() == session)

        let linked = try await client.identity.linkPhone(number, code: code)
        #expect(linked.id == account.id && linked.phone == number && linked.signInMethods == ["email", "phone"])
    }

    @Test func aTakenEmail_orASecondOne_isRefused_andTheAccountStaysAsItWas() async throws {
        let taken = EndToEnd.uniqueEmail()
        let owner = try EndToEnd.client(app: "momento")
        let client = try EndToEnd.client(app: "momento")
        defer { owner.close(); client.close() }
        _ = try await owner.identity.signUpWithEmail(taken, password: Self.password)
        let anonymous = try await client.identity.signInAnonymously()

        let takenError = await gatewayError { _ = try await client.identity.linkEmail(taken, password: Self.password) }
        #expect(takenError?.code == .alreadyExists && takenError?.reason == "EMAIL_TAKEN")
        #expect(try await client.identity.getAccount().anonymous)

        let mine = EndToEnd.uniqueEmail()
        _ = try await client.identity.linkEmail(mine, password: Self.password)
        let second = await gatewayError { _ = try await client.identity.linkEmail(EndToEnd.uniqueEmail(), password: Self.password) }
        #expect(second?.code == .alreadyExists && second?.reason == "ALREADY_LINKED")
        #expect(second?.details["method"] == "email")
        let account = try await client.identity.getAccount()
        #expect(account.id == anonymous.id && account.email == mine)
    }
}
