import Contracts
import Foundation
@testable import Identity
import Postgres
import RPC
import TestSupport
import Testing

/// DeleteAccount over a live socket: everything goes in one transaction with an AccountDeleted
/// event, the old tokens and credentials stop working, and the same credentials can start over.
@Suite struct AccountDeletionTests {
    @Test func emailAccount_deleted_tokensAndCredentialsDead_eventInOutbox_emailCanSignUpAgain() async throws {
        let harness = try await IdentityHarness.start()
        let email = IdentityHarness.uniqueEmail()
        let session = try await harness.client.signUpWithEmail(.init(app: "firstdate", email: email, password: "correct horse battery"))
        let other = try await harness.client.signInWithEmail(.init(app: "firstdate", email: email, password: "correct horse battery"))
        let accountID = try #require(session.account?.id)
        #expect(try await harness.eventPayloads("AccountCreated", aggregateID: accountID).count == 1)

        let response = try await harness.client.deleteAccount(options: .bearer(session.accessToken))
        let deletedAt = try #require(response.deletedAt)
        #expect(abs(Double(deletedAt.seconds) - Date().timeIntervalSince1970) < 60)

        let events = try await harness.eventPayloads("AccountDeleted", aggregateID: accountID)
        #expect(events.count == 1)
        let event = try Identity.AccountDeleted(serializedBytes: events[0])
        #expect(event.accountID == accountID && event.app == "firstdate" && event.deletedAt == deletedAt)
        // The history keeps no event that carries the account's email (AccountCreated).
        #expect(try await harness.eventPayloads("AccountCreated", aggregateID: accountID).isEmpty)

        for refreshToken in [session.refreshToken, other.refreshToken] {
            let refresh = await rpcError { _ = try await harness.client.refreshSession(.init(refreshToken: refreshToken)) }
            #expect(refresh?.code == .unauthenticated)
        }
        let signIn = await rpcError {
            _ = try await harness.client.signInWithEmail(.init(app: "firstdate", email: email, password: "correct horse battery"))
        }
        #expect(signIn?.code == .unauthenticated && signIn?.reason == "INVALID_CREDENTIALS")
        // The access token is still unexpired, but its account is gone.
        let me = await rpcError { _ = try await harness.client.getAccount(options: .bearer(session.accessToken)) }
        #expect(me?.code == .unauthenticated && me?.reason == "ACCOUNT_NOT_FOUND")
        let twice = await rpcError { _ = try await harness.client.deleteAccount(options: .bearer(other.accessToken)) }
        #expect(twice?.code == .unauthenticated && twice?.reason == "ACCOUNT_NOT_FOUND")

        let rows = try await harness.pool.withConnection { connection in
            try await connection.query("""
                SELECT (SELECT count(*) FROM identity.accounts WHERE id = $1)
                     + (SELECT count(*) FROM identity.email_credentials WHERE account_id = $1)
                     + (SELECT count(*) FROM identity.sessions WHERE account_id = $1)
                """, [.uuid(UUID(uuidString: accountID))])
        }
        #expect(try rows[0].decode(0, as: Int64.self) == 0)

        let again = try await harness.client.signUpWithEmail(.init(app: "firstdate", email: email, password: "another good password"))
        #expect(again.account?.id != accountID && again.account?.email == email)
        await harness.stop()
    }

    @Test func appleAndPhoneAccount_deleted_bothCanSignUpAgainAsANewAccount() async throws {
        let minter = try ProviderTokenMinter()
        let sender = CapturingCodeSender()
        let harness = try await IdentityHarness.startForSignIn(minter, sender: sender) { $0.phoneCodes.resendInterval = 0 }
        let subject = TestDatabase.uniqueName("sub")
        let nonce = ProviderTokenMinter.makeNonce()
        let token = try minter.rs256(ProviderTokenMinter.apple(subject: subject, app: "elite", rawNonce: nonce))
        let session = try await harness.client.signInWithProvider(.init(app: "elite", provider: .apple, idToken: token, rawNonce: nonce))
        let phone = IdentityHarness.uniquePhone()
        _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone))
        let linked = try await harness.client.linkPhone(.init(phone: phone, code: try #require(sender.lastCode(to: phone))),
                                                        options: .bearer(session.accessToken))
        #expect(linked.signInMethods == ["apple", "phone"])

        _ = try await harness.client.deleteAccount(options: .bearer(session.accessToken))
        let throttleRows = try await harness.pool.withConnection { connection in
            try await connection.query("SELECT 1 FROM identity.phone_codes WHERE app = 'elite' AND phone = $1", [.text(phone)])
        }
        #expect(throttleRows.isEmpty)

        let appleAgain = try await harness.client.signInWithProvider(
            .init(app: "elite", provider: .apple, idToken: token, rawNonce: nonce))
        #expect(appleAgain.account?.id != linked.id && appleAgain.account?.signInMethods == ["apple"])
        _ = try await harness.client.startPhoneSignIn(.init(app: "elite", phone: phone))
        let phoneAgain = try await harness.client.verifyPhoneCode(
            .init(app: "elite", phone: phone, code: try #require(sender.lastCode(to: phone))))
        #expect(phoneAgain.account?.id != linked.id && phoneAgain.account?.id != appleAgain.account?.id)
        await harness.stop()
    }

    @Test func signedOutSession_cannotDelete_andTheAccountStays() async throws {
        let harness = try await IdentityHarness.start()
        let session = try await harness.client.signInAnonymously(.init(app: "swivo"))
        _ = try await harness.client.signOut(.init(), options: .bearer(session.accessToken))
        let error = await rpcError { _ = try await harness.client.deleteAccount(options: .bearer(session.accessToken)) }
        #expect(error?.code == .unauthenticated && error?.reason == "SESSION_REVOKED")
        let accountID = try #require(session.account?.id)
        #expect(try await harness.eventPayloads("AccountDeleted", aggregateID: accountID).isEmpty)
        let unauthenticated = await rpcError { _ = try await harness.client.deleteAccount(options: CallOptions()) }
        #expect(unauthenticated?.code == .unauthenticated && unauthenticated?.reason == "MISSING_TOKEN")
        await harness.stop()
    }
}
