import Contracts
import Foundation
import GatewayClient
import Testing

/// Deleting the account against the identity executable, through GatewayClient: the device is
/// signed out, every session of the account is dead, and its email or Apple ID is free to make
/// a new account.
@Suite(.identityService, .timeLimit(.minutes(2)))
struct EndToEndAccountDeletionTests {
    static let password = "correct horse battery staple"

    @Test func deletion_clearsTheStore_killsEverySession_andFreesTheEmailForANewAccount() async throws {
        let email = EndToEnd.uniqueEmail()
        let store = InMemoryTokenStore()
        let phone = try EndToEnd.client(app: "momento", store: store)
        let laptop = try EndToEnd.client(app: "momento")
        defer { phone.close(); laptop.close() }
        let deleted = try await phone.identity.signUpWithEmail(email, password: Self.password)
        _ = try await laptop.identity.signInWithEmail(email, password: Self.password)
        var old = try #require(store.load())

        let deletedAt = try await phone.identity.deleteAccount()
        #expect(abs(deletedAt.timeIntervalSinceNow) < 60)
        #expect(store.load() == nil)
        #expect(try phone.currentSession() == nil)
        let afterwards = await gatewayError { _ = try await phone.identity.getAccount() }
        #expect(afterwards?.isSignedOut == true && afterwards?.details["cause"] == "NO_SESSION")

        // The old session, kept elsewhere: its refresh token no longer works.
        old.accessTokenExpiresAt = Date(timeIntervalSinceNow: -1)
        let restored = try EndToEnd.client(app: "momento", store: InMemoryTokenStore(old))
        defer { restored.close() }
        let refused = await gatewayError { _ = try await restored.identity.getAccount() }
        #expect(refused?.isSignedOut == true)
        // The other device's session went with the account.
        let otherDevice = await gatewayError { try await laptop.identity.refreshSession() }
        #expect(otherDevice?.isSignedOut == true)
        #expect(try laptop.currentSession() == nil)

        let oldPassword = await gatewayError { _ = try await phone.identity.signInWithEmail(email, password: Self.password) }
        #expect(oldPassword?.code == .unauthenticated && oldPassword?.reason == "INVALID_CREDENTIALS")
        let fresh = try await phone.identity.signUpWithEmail(email, password: Self.password)
        #expect(fresh.id != deleted.id && fresh.email == email)
    }

    @Test func aDeletedAppleAccount_signsInAgainAsANewAccount() async throws {
        let subject = ProviderTokens.uniqueSubject()
        let client = try EndToEnd.client(app: "firstdate")
        defer { client.close() }
        let first = ProviderNonce()
        let deleted = try await client.identity.signInWithProvider(
            .apple, idToken: try ProviderTokens.shared.rs256(ProviderTokens.apple(subject: subject, app: "firstdate", nonce: first)),
            rawNonce: first.raw)
        try await client.identity.deleteAccount()

        let second = ProviderNonce()
        let fresh = try await client.identity.signInWithProvider(
            .apple, idToken: try ProviderTokens.shared.rs256(ProviderTokens.apple(subject: subject, app: "firstdate", nonce: second)),
            rawNonce: second.raw)
        #expect(fresh.id != deleted.id)
    }

    @Test func deletingWhenSignedOut_isSignedOut_withoutAServerCall() async throws {
        let client = try EndToEnd.client(app: "momento")
        defer { client.close() }
        let error = await gatewayError { try await client.identity.deleteAccount() }
        #expect(error?.isSignedOut == true && error?.details["cause"] == "NO_SESSION")
    }
}
