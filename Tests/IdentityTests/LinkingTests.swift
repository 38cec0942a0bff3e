import Contracts
import Foundation
@testable import Identity
import RPC
import TestSupport
import Testing

/// Linking an anonymous device account to Apple, Google, email+password or a phone number:
/// the account keeps its id and data, and the method then signs in to it.
@Suite struct LinkingTests {
    /// The standard apps plus `pocket`, an app with anonymous accounts that can link a phone;
    /// codes can be resent at once.
    static func start(_ minter: ProviderTokenMinter, sender: CapturingCodeSender = CapturingCodeSender()) async throws
        -> IdentityHarness {
        try await IdentityHarness.startForSignIn(minter, sender: sender) { settings in
            let standard = AppPolicies.standard.appIDs.compactMap { try? AppPolicies.standard.policy(for: $0) }
            let pocket = AppPolicy(id: "pocket", signInMethods: [.anonymous, .phone], defaultRole: "member",
                                   initialMembershipStatus: "active")
            settings.apps = AppPolicies(standard + [pocket])
            settings.phoneCodes.resendInterval = 0
        }
    }

    @Test func anonymous_linksApple_keepsIdAndUsername_andAppleSignInReturnsIt() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await Self.start(minter)
        let anonymous = try await harness.client.signInAnonymously(.init(app: "swivo"))
        let before = try #require(anonymous.account)
        let subject = TestDatabase.uniqueName("sub")
        let nonce = ProviderTokenMinter.makeNonce()
        let token = try minter.rs256(ProviderTokenMinter.apple(subject: subject, app: "swivo", rawNonce: nonce))
        let linked = try await harness.client.linkProvider(.init(provider: .apple, idToken: token, rawNonce: nonce),
                                                           options: .bearer(anonymous.accessToken))
        #expect(linked.id == before.id && linked.username == before.username && linked.createdAt == before.createdAt)
        #expect(!linked.anonymous && linked.signInMethods == ["apple"])
        // Linking the same identity again changes nothing.
        let again = try await harness.client.linkProvider(.init(provider: .apple, idToken: token, rawNonce: nonce),
                                                          options: .bearer(anonymous.accessToken))
        #expect(again.id == before.id)

        let signInNonce = ProviderTokenMinter.makeNonce()
        let signIn = try await harness.client.signInWithProvider(.init(
            app: "swivo", provider: .apple,
            idToken: try minter.rs256(ProviderTokenMinter.apple(subject: subject, app: "swivo", rawNonce: signInNonce)),
            rawNonce: signInNonce))
        #expect(signIn.account?.id == before.id && signIn.account?.anonymous == false)
        // The device's own session still works after linking.
        let refreshed = try await harness.client.refreshSession(.init(refreshToken: anonymous.refreshToken))
        #expect(refreshed.account?.id == before.id && refreshed.account?.signInMethods == ["apple"])
        await harness.stop()
    }

    @Test func anonymous_linksGoogle_thenGoogleSignInReturnsIt() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await Self.start(minter)
        let anonymous = try await harness.client.signInAnonymously(.init(app: "momento"))
        let subject = TestDatabase.uniqueName("sub")
        let email = IdentityHarness.uniqueEmail()
        let nonce = ProviderTokenMinter.makeNonce()
        let token = try minter.es256(ProviderTokenMinter.google(subject: subject, app: "momento", rawNonce: nonce, email: email))
        let linked = try await harness.client.linkProvider(.init(provider: .google, idToken: token, rawNonce: nonce),
                                                           options: .bearer(anonymous.accessToken))
        #expect(linked.id == anonymous.account?.id && linked.email == email && !linked.anonymous)
        let signInNonce = ProviderTokenMinter.makeNonce()
        let signIn = try await harness.client.signInWithProvider(.init(
            app: "momento", provider: .google,
            idToken: try minter.es256(ProviderTokenMinter.google(subject: subject, app: "momento", rawNonce: signInNonce)),
            rawNonce: signInNonce))
        #expect(signIn.account?.id == linked.id)
        await harness.stop()
    }

    @Test func anonymous_linksEmail_thenEmailSignInReturnsIt() async throws {
        let harness = try await Self.start(try ProviderTokenMinter())
        let anonymous = try await harness.client.signInAnonymously(.init(app: "unseen"))
        let email = IdentityHarness.uniqueEmail()
        let linked = try await harness.client.linkEmail(.init(email: email.uppercased(), password: "correct horse battery"),
                                                        options: .bearer(anonymous.accessToken))
        #expect(linked.id == anonymous.account?.id && linked.email == email && !linked.anonymous)
        #expect(linked.signInMethods == ["email"])
        let signIn = try await harness.client.signInWithEmail(.init(app: "unseen", email: email, password: "correct horse battery"))
        #expect(signIn.account?.id == linked.id)
        let again = await rpcError {
            _ = try await harness.client.linkEmail(.init(email: IdentityHarness.uniqueEmail(), password: "correct horse battery"),
                                                   options: .bearer(anonymous.accessToken))
        }
        #expect(again?.code == .alreadyExists && again?.reason == "ALREADY_LINKED" && again?.details["method"] == "email")
        await harness.stop()
    }

    @Test func anonymous_linksPhone_thenPhoneSignInReturnsIt() async throws {
        let sender = CapturingCodeSender()
        let harness = try await Self.start(try ProviderTokenMinter(), sender: sender)
        let anonymous = try await harness.client.signInAnonymously(.init(app: "pocket"))
        let phone = IdentityHarness.uniquePhone()
        _ = try await harness.client.startPhoneSignIn(.init(app: "pocket", phone: phone))
        let wrong = await rpcError {
            _ = try await harness.client.linkPhone(.init(phone: phone, code: "abc"), options: .bearer(anonymous.accessToken))
        }
        #expect(wrong?.reason == "INVALID_CODE")
        let linked = try await harness.client.linkPhone(.init(phone: phone, code: try #require(sender.lastCode(to: phone))),
                                                        options: .bearer(anonymous.accessToken))
        #expect(linked.id == anonymous.account?.id && linked.phone == phone && linked.signInMethods == ["phone"])
        #expect(!linked.anonymous)
        _ = try await harness.client.startPhoneSignIn(.init(app: "pocket", phone: phone))
        let signIn = try await harness.client.verifyPhoneCode(
            .init(app: "pocket", phone: phone, code: try #require(sender.lastCode(to: phone))))
        #expect(signIn.account?.id == linked.id)
        await harness.stop()
    }

    @Test func credentialOfAnotherAccount_isAlreadyExists_withItsReason() async throws {
        let minter = try ProviderTokenMinter()
        let sender = CapturingCodeSender()
        let harness = try await Self.start(minter, sender: sender)
        // Another account already owns an Apple identity and an email in momento.
        let subject = TestDatabase.uniqueName("sub")
        let nonce = ProviderTokenMinter.makeNonce()
        let token = try minter.rs256(ProviderTokenMinter.apple(subject: subject, app: "momento", rawNonce: nonce))
        _ = try await harness.client.signInWithProvider(.init(app: "momento", provider: .apple, idToken: token, rawNonce: nonce))
        let email = IdentityHarness.uniqueEmail()
        _ = try await harness.client.signUpWithEmail(.init(app: "momento", email: email, password: "correct horse battery"))

        let anonymous = try await harness.client.signInAnonymously(.init(app: "momento"))
        let bearer = CallOptions.bearer(anonymous.accessToken)
        let provider = await rpcError {
            _ = try await harness.client.linkProvider(.init(provider: .apple, idToken: token, rawNonce: nonce), options: bearer)
        }
        #expect(provider?.code == .alreadyExists && provider?.reason == "PROVIDER_IDENTITY_TAKEN")
        let taken = await rpcError {
            _ = try await harness.client.linkEmail(.init(email: email, password: "correct horse battery"), options: bearer)
        }
        #expect(taken?.code == .alreadyExists && taken?.reason == "EMAIL_TAKEN")

        // A phone number that signs in to another pocket account.
        let phone = IdentityHarness.uniquePhone()
        _ = try await harness.client.startPhoneSignIn(.init(app: "pocket", phone: phone))
        _ = try await harness.client.verifyPhoneCode(.init(app: "pocket", phone: phone, code: try #require(sender.lastCode(to: phone))))
        let pocket = try await harness.client.signInAnonymously(.init(app: "pocket"))
        _ = try await harness.client.startPhoneSignIn(.init(app: "pocket", phone: phone))
        let phoneTaken = await rpcError {
            _ = try await harness.client.linkPhone(.init(phone: phone, code: try #require(sender.lastCode(to: phone))),
                                                   options: .bearer(pocket.accessToken))
        }
        #expect(phoneTaken?.code == .alreadyExists && phoneTaken?.reason == "PHONE_TAKEN")
        // The anonymous accounts are untouched.
        #expect(try await harness.client.getAccount(options: bearer).anonymous)
        #expect(try await harness.client.getAccount(options: .bearer(pocket.accessToken)).anonymous)
        await harness.stop()
    }

    @Test func secondIdentityOfOneProvider_isAlreadyLinked() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await Self.start(minter)
        let anonymous = try await harness.client.signInAnonymously(.init(app: "swivo"))
        for (index, subject) in [TestDatabase.uniqueName("sub"), TestDatabase.uniqueName("sub")].enumerated() {
            let nonce = ProviderTokenMinter.makeNonce()
            let token = try minter.rs256(ProviderTokenMinter.apple(subject: subject, app: "swivo", rawNonce: nonce))
            let error = await rpcError {
                _ = try await harness.client.linkProvider(.init(provider: .apple, idToken: token, rawNonce: nonce),
                                                          options: .bearer(anonymous.accessToken))
            }
            if index == 0 {
                #expect(error == nil)
            } else {
                #expect(error?.code == .alreadyExists && error?.reason == "ALREADY_LINKED" && error?.details["method"] == "apple")
            }
        }
        await harness.stop()
    }

    @Test func methodTheAppDoesNotOffer_unauthenticated_orBadInput_isRefused() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await Self.start(minter)
        let swivo = try await harness.client.signInAnonymously(.init(app: "swivo"))
        let bearer = CallOptions.bearer(swivo.accessToken)
        let phone = await rpcError {
            _ = try await harness.client.linkPhone(.init(phone: IdentityHarness.uniquePhone(), code: "123456"), options: bearer)
        }
        #expect(phone?.code == .failedPrecondition && phone?.reason == "SIGN_IN_METHOD_NOT_ALLOWED")
        let pocket = try await harness.client.signInAnonymously(.init(app: "pocket"))
        let nonce = ProviderTokenMinter.makeNonce()
        let token = try minter.rs256(ProviderTokenMinter.apple(subject: TestDatabase.uniqueName("sub"), app: "pocket", rawNonce: nonce))
        let apple = await rpcError {
            _ = try await harness.client.linkProvider(.init(provider: .apple, idToken: token, rawNonce: nonce),
                                                      options: .bearer(pocket.accessToken))
        }
        #expect(apple?.reason == "SIGN_IN_METHOD_NOT_ALLOWED")
        let noToken = await rpcError {
            _ = try await harness.client.linkEmail(.init(email: IdentityHarness.uniqueEmail(), password: "correct horse battery"),
                                                   options: CallOptions())
        }
        #expect(noToken?.code == .unauthenticated && noToken?.reason == "MISSING_TOKEN")
        let weak = await rpcError {
            _ = try await harness.client.linkEmail(.init(email: IdentityHarness.uniqueEmail(), password: "short"), options: bearer)
        }
        #expect(weak?.reason == "WEAK_PASSWORD")
        let malformed = await rpcError {
            _ = try await harness.client.linkEmail(.init(email: "not an email", password: "correct horse battery"), options: bearer)
        }
        #expect(malformed?.reason == "INVALID_EMAIL")
        let forged = await rpcError {
            _ = try await harness.client.linkProvider(
                .init(provider: .apple, idToken: try minter.rs256(ProviderTokenMinter.apple(
                    subject: TestDatabase.uniqueName("sub"), app: "firstdate", rawNonce: nonce)), rawNonce: nonce),
                options: bearer)
        }
        #expect(forged?.reason == "ID_TOKEN_WRONG_AUDIENCE")
        #expect(try await harness.client.getAccount(options: bearer).anonymous)
        await harness.stop()
    }
}
