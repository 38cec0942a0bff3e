import Contracts
import CryptoCore
import Foundation
@testable import Identity
import RPC
import TestSupport
import Testing

/// Sign in with Apple and Google over a live socket, with ID tokens minted by the tests' own
/// keys: what a valid token does, and every way a token is refused.
@Suite struct ProviderSignInTests {
    static func subject() -> String { TestDatabase.uniqueName("sub") }

    @Test func apple_rs256_firstSignInCreatesAccount_laterSignInReturnsIt() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await IdentityHarness.startForSignIn(minter)
        let subject = Self.subject()
        let email = IdentityHarness.uniqueEmail()
        let nonce = ProviderTokenMinter.makeNonce()
        let token = try minter.rs256(ProviderTokenMinter.apple(subject: subject, app: "momento", rawNonce: nonce, email: email))
        let first = try await harness.client.signInWithProvider(
            .init(app: "momento", provider: .apple, idToken: token, rawNonce: nonce, deviceName: "iPhone"))
        let account = try #require(first.account)
        #expect(account.app == "momento" && !account.anonymous)
        #expect(account.email == email && account.signInMethods == ["apple"])
        let me = try await harness.client.getAccount(options: .bearer(first.accessToken))
        #expect(me.id == account.id)
        let created = try await harness.eventPayloads("AccountCreated", aggregateID: account.id)
        #expect(created.count == 1)
        #expect(try Identity.Account(serializedBytes: created[0]).email == email)

        // Apple sends the email on the first sign-in only: a later token without it keeps it.
        let laterNonce = ProviderTokenMinter.makeNonce()
        let later = try minter.rs256(ProviderTokenMinter.apple(subject: subject, app: "momento", rawNonce: laterNonce))
        let second = try await harness.client.signInWithProvider(
            .init(app: "momento", provider: .apple, idToken: later, rawNonce: laterNonce))
        #expect(second.account?.id == account.id && second.sessionID != first.sessionID)
        #expect(second.account?.email == email)
        #expect(try await harness.eventPayloads("AccountCreated", aggregateID: account.id).count == 1)
        await harness.stop()
    }

    @Test func google_es256_issuerWithoutScheme_signsIn_andTheSameSubjectInAnotherAppIsAnotherAccount() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await IdentityHarness.startForSignIn(minter)
        let subject = Self.subject()
        var ids: [String] = []
        for app in ["momento", "firstdate"] {
            let nonce = ProviderTokenMinter.makeNonce()
            let token = try minter.es256(ProviderTokenMinter.google(subject: subject, app: app, rawNonce: nonce,
                                                                    email: IdentityHarness.uniqueEmail()))
            let session = try await harness.client.signInWithProvider(
                .init(app: app, provider: .google, idToken: token, rawNonce: nonce))
            #expect(session.account?.app == app && session.account?.signInMethods == ["google"])
            ids.append(session.account?.id ?? "")
        }
        #expect(ids[0] != ids[1])
        await harness.stop()
    }

    /// The account's email follows its provider's: a later sign-in bringing another verified
    /// address changes what GetAccount answers, and the account keeps one sign-in method.
    @Test func aLaterGoogleSignIn_withANewEmail_changesTheAccountsEmail() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await IdentityHarness.startForSignIn(minter)
        let subject = Self.subject()
        var sessions: [Identity.AuthSession] = []
        for email in [IdentityHarness.uniqueEmail(), IdentityHarness.uniqueEmail()] {
            let nonce = ProviderTokenMinter.makeNonce()
            let token = try minter.es256(ProviderTokenMinter.google(subject: subject, app: "momento", rawNonce: nonce,
                                                                    email: email))
            let session = try await harness.client.signInWithProvider(
                .init(app: "momento", provider: .google, idToken: token, rawNonce: nonce))
            #expect(session.account?.email == email && session.account?.signInMethods == ["google"])
            let me = try await harness.client.getAccount(options: .bearer(session.accessToken))
            #expect(me.email == email && me.signInMethods == ["google"])
            sessions.append(session)
        }
        #expect(sessions[0].account?.id == sessions[1].account?.id)
        await harness.stop()
    }

    @Test func forgedSignatures_areBadSignature() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await IdentityHarness.startForSignIn(minter)
        let nonce = ProviderTokenMinter.makeNonce()
        let claims = ProviderTokenMinter.apple(subject: Self.subject(), app: "momento", rawNonce: nonce)
        // ES256 by another key under the configured kid.
        let impostor = try ECSigningKey.generate(keyID: ProviderTokenMinter.ecKeyID)
        let otherKey = try minter.es256(claims, key: impostor)
        // A genuine RS256 token whose payload was swapped for another subject's.
        let genuine = try minter.rs256(claims).split(separator: ".")
        var swapped = claims
        swapped["sub"] = "someone-else"
        let tampered = [String(genuine[0]), Base64URL.encode(swapped.serialized()), String(genuine[2])].joined(separator: ".")
        for token in [otherKey, tampered] {
            let error = await rpcError {
                _ = try await harness.client.signInWithProvider(
                    .init(app: "momento", provider: .apple, idToken: token, rawNonce: nonce))
            }
            #expect(error?.code == .unauthenticated && error?.reason == "ID_TOKEN_BAD_SIGNATURE")
        }
        await harness.stop()
    }

    @Test func unknownKid_isUnknownKey_andGarbage_isMalformed() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await IdentityHarness.startForSignIn(minter)
        let nonce = ProviderTokenMinter.makeNonce()
        let claims = ProviderTokenMinter.google(subject: Self.subject(), app: "momento", rawNonce: nonce)
        let cases = [
            (try minter.rs256(claims, keyID: "rotated-away"), "ID_TOKEN_UNKNOWN_KEY"),
            (try minter.es256(claims, key: ECSigningKey.generate(keyID: "stranger")), "ID_TOKEN_UNKNOWN_KEY"),
            ("not.a.jwt", "ID_TOKEN_MALFORMED"),
            ("", "ID_TOKEN_MALFORMED"),
        ]
        for (token, reason) in cases {
            let error = await rpcError {
                _ = try await harness.client.signInWithProvider(
                    .init(app: "momento", provider: .google, idToken: token, rawNonce: nonce))
            }
            #expect(error?.code == .unauthenticated && error?.reason == reason, "\(reason)")
        }
        await harness.stop()
    }

    @Test func wrongIssuer_wrongAudience_expired_notYetValid_areRefused() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await IdentityHarness.startForSignIn(minter)
        let nonce = ProviderTokenMinter.makeNonce()
        let base = ProviderTokenMinter.apple(subject: Self.subject(), app: "momento", rawNonce: nonce)
        let now = ProviderTokenMinter.now
        var googleIssuer = base
        googleIssuer["iss"] = "https://accounts.google.com"
        var otherApp = base
        otherApp["aud"] = "com.rendezvous.firstdate"
        var expired = base
        expired["iat"] = .integer(now - 1200)
        expired["exp"] = .integer(now - 600)
        var future = base
        future["nbf"] = .integer(now + 600)
        for (claims, reason) in [(googleIssuer, "ID_TOKEN_WRONG_ISSUER"), (otherApp, "ID_TOKEN_WRONG_AUDIENCE"),
                                 (expired, "ID_TOKEN_EXPIRED"), (future, "ID_TOKEN_NOT_YET_VALID")] {
            let token = try minter.rs256(claims)
            let error = await rpcError {
                _ = try await harness.client.signInWithProvider(
                    .init(app: "momento", provider: .apple, idToken: token, rawNonce: nonce))
            }
            #expect(error?.code == .unauthenticated && error?.reason == reason, "\(reason)")
        }
        // Within the clock skew allowance a just-expired token still passes.
        var justExpired = base
        justExpired["exp"] = .integer(now - 5)
        _ = try await harness.client.signInWithProvider(
            .init(app: "momento", provider: .apple, idToken: try minter.rs256(justExpired), rawNonce: nonce))
        await harness.stop()
    }

    @Test func configuredAudiences_replaceTheDefault() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await IdentityHarness.startForSignIn(minter) { settings in
            settings.apps = AppPolicies([AppPolicy(id: "firstdate", signInMethods: [.google], defaultRole: "viewer",
                                                   initialMembershipStatus: "active",
                                                   googleAudiences: ["1234-abc.apps.googleusercontent.com"])])
        }
        let nonce = ProviderTokenMinter.makeNonce()
        var claims = ProviderTokenMinter.google(subject: Self.subject(), app: "firstdate", rawNonce: nonce)
        let defaultAudience = try minter.rs256(claims)
        let refused = await rpcError {
            _ = try await harness.client.signInWithProvider(
                .init(app: "firstdate", provider: .google, idToken: defaultAudience, rawNonce: nonce))
        }
        #expect(refused?.reason == "ID_TOKEN_WRONG_AUDIENCE")
        claims["aud"] = .array(["someone-else", "1234-abc.apps.googleusercontent.com"])
        let session = try await harness.client.signInWithProvider(
            .init(app: "firstdate", provider: .google, idToken: try minter.rs256(claims), rawNonce: nonce))
        #expect(session.account?.app == "firstdate")
        await harness.stop()
    }

    @Test func nonce_missingFromRequest_absentOrWrongInToken_orAppleRawInsteadOfHashed_isRefused() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await IdentityHarness.startForSignIn(minter)
        let nonce = ProviderTokenMinter.makeNonce()
        let valid = ProviderTokenMinter.apple(subject: Self.subject(), app: "momento", rawNonce: nonce)
        let missing = await rpcError {
            _ = try await harness.client.signInWithProvider(
                .init(app: "momento", provider: .apple, idToken: try minter.rs256(valid), rawNonce: ""))
        }
        #expect(missing?.code == .invalidArgument && missing?.reason == "NONCE_REQUIRED")
        var absent = valid
        absent["nonce"] = nil
        var raw = valid
        raw["nonce"] = .string(nonce)
        for claims in [absent, raw] {
            let error = await rpcError {
                _ = try await harness.client.signInWithProvider(
                    .init(app: "momento", provider: .apple, idToken: try minter.rs256(claims), rawNonce: nonce))
            }
            #expect(error?.code == .unauthenticated && error?.reason == "ID_TOKEN_NONCE_MISMATCH")
        }
        // Another sign-in's nonce (a replayed token).
        let replayed = await rpcError {
            _ = try await harness.client.signInWithProvider(
                .init(app: "momento", provider: .apple, idToken: try minter.rs256(valid),
                      rawNonce: ProviderTokenMinter.makeNonce()))
        }
        #expect(replayed?.reason == "ID_TOKEN_NONCE_MISMATCH")
        await harness.stop()
    }

    @Test func providerNotAllowedByPolicy_unspecified_orUnconfigured_isRefused() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await IdentityHarness.startForSignIn(minter) { $0.providerKeys[.google] = nil }
        let nonce = ProviderTokenMinter.makeNonce()
        // ÉLITE offers Apple and phone, not Google.
        let google = try minter.rs256(ProviderTokenMinter.google(subject: Self.subject(), app: "elite", rawNonce: nonce))
        let notAllowed = await rpcError {
            _ = try await harness.client.signInWithProvider(.init(app: "elite", provider: .google, idToken: google, rawNonce: nonce))
        }
        #expect(notAllowed?.code == .failedPrecondition && notAllowed?.reason == "SIGN_IN_METHOD_NOT_ALLOWED")
        let unspecified = await rpcError {
            _ = try await harness.client.signInWithProvider(.init(app: "elite", provider: .unspecified, idToken: google, rawNonce: nonce))
        }
        #expect(unspecified?.code == .invalidArgument && unspecified?.reason == "INVALID_PROVIDER")
        let unknownNumber = await rpcError {
            _ = try await harness.client.signInWithProvider(
                .init(app: "elite", provider: .init(rawValue: 9), idToken: google, rawNonce: nonce))
        }
        #expect(unknownNumber?.reason == "INVALID_PROVIDER")
        let unconfigured = await rpcError {
            _ = try await harness.client.signInWithProvider(
                .init(app: "momento", provider: .google, idToken: google, rawNonce: nonce))
        }
        #expect(unconfigured?.code == .failedPrecondition && unconfigured?.reason == "PROVIDER_NOT_CONFIGURED")
        // ÉLITE's Apple sign-in works, and the account waits for committee review.
        let apple = try minter.rs256(ProviderTokenMinter.apple(subject: Self.subject(), app: "elite", rawNonce: nonce))
        let member = try await harness.client.signInWithProvider(.init(app: "elite", provider: .apple, idToken: apple, rawNonce: nonce))
        #expect(member.account?.membershipStatus == "waitlisted")
        await harness.stop()
    }

    @Test func concurrentFirstSignIns_ofOneIdentity_makeOneAccount() async throws {
        let minter = try ProviderTokenMinter()
        let harness = try await IdentityHarness.startForSignIn(minter)
        let subject = Self.subject()
        let nonce = ProviderTokenMinter.makeNonce()
        let token = try minter.rs256(ProviderTokenMinter.apple(subject: subject, app: "momento", rawNonce: nonce))
        let request = Identity.SignInWithProviderRequest(app: "momento", provider: .apple, idToken: token, rawNonce: nonce)
        let client = harness.client
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<4 { group.addTask { try await client.signInWithProvider(request).account?.id ?? "" } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        let id = try #require(ids.first)
        #expect(try await harness.eventPayloads("AccountCreated", aggregateID: id).count == 1)
        await harness.stop()
    }
}
