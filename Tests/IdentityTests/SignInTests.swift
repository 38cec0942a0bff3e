import Contracts
import Foundation
import Postgres
import Testing

/// Anonymous and email+password sign-in over a live socket.
@Suite struct SignInTests {
    @Test func anonymousSignIn_createsAnonAccountWithWorkingTokens() async throws {
        let harness = try await IdentityHarness.start()
        let session = try await harness.client.signInAnonymously(.init(app: "swivo", deviceName: "test phone"))
        let account = try #require(session.account)
        #expect(account.app == "swivo")
        #expect(account.anonymous)
        #expect(account.username.hasPrefix("anon-") && account.username.count == 11)
        #expect(!session.accessToken.isEmpty && !session.refreshToken.isEmpty)
        let me = try await harness.client.getAccount(options: .bearer(session.accessToken))
        #expect(me.id == account.id && me.username == account.username)
        await harness.stop()
    }

    /// 60 anonymous sign-ins at once share commits (group commit): each is an account of its
    /// own, with a working session and one AccountCreated event, and each answer arrives only
    /// once its account, session and event are committed.
    @Test func concurrentAnonymousSignIns_shareCommits_eachItsOwnAccountAndSession() async throws {
        let harness = try await IdentityHarness.start()
        let pool = harness.pool
        let signIns = try await withThrowingTaskGroup(of: (Identity.AuthSession, Bool).self) { group in
            for n in 0..<60 {
                group.addTask {
                    let session = try await harness.client.signInAnonymously(.init(app: "swivo", deviceName: "phone \(n)"))
                    // Read at once, by another connection: the answer means it is committed.
                    let rows = try await pool.withConnection { connection in
                        try await connection.query("""
                            SELECT (SELECT count(*) FROM identity.sessions s WHERE s.id = $2::uuid AND s.account_id = $1::uuid
                                        AND s.device_name = $3),
                                   (SELECT count(*) FROM identity.outbox o WHERE o.type = 'AccountCreated' AND o.aggregate_id = $1)
                            """, [.text(session.account?.id ?? ""), .text(session.sessionID), .text("phone \(n)")])
                    }
                    return (session, try rows[0].decode(0, as: Int64.self) == 1 && rows[0].decode(1, as: Int64.self) == 1)
                }
            }
            return try await group.reduce(into: [(Identity.AuthSession, Bool)]()) { $0.append($1) }
        }
        #expect(signIns.count == 60)
        #expect(signIns.allSatisfy { $0.1 }, "a sign-in was answered before its session and event were committed")
        let accounts = signIns.compactMap { $0.0.account }
        #expect(Set(accounts.map(\.id)).count == 60)
        #expect(Set(accounts.map(\.username)).count == 60)
        #expect(accounts.allSatisfy { $0.app == "swivo" && $0.anonymous && $0.username.hasPrefix("anon-") })
        for (session, _) in signIns.prefix(8) {
            let me = try await harness.client.getAccount(options: .bearer(session.accessToken))
            #expect(me.id == session.account?.id)
            let refreshed = try await harness.client.refreshSession(.init(refreshToken: session.refreshToken))
            #expect(refreshed.account?.id == session.account?.id && refreshed.sessionID == session.sessionID)
        }
        let commits = try await pool.withConnection { connection in
            try await connection.query("SELECT count(DISTINCT xmin::text) FROM identity.accounts WHERE id = ANY($1::uuid[])",
                                       [.uuidArray(accounts.compactMap { UUID(uuidString: $0.id) })])[0].decode(0, as: Int64.self)
        }
        #expect(commits < 60, "60 concurrent sign-ins were 60 commits: none shared a batch")
        await harness.stop()
    }

    @Test func anonymousSignIn_appWithoutIt_isFailedPrecondition_andUnknownApp_isInvalidArgument() async throws {
        let harness = try await IdentityHarness.start()
        let notAllowed = await rpcError { _ = try await harness.client.signInAnonymously(.init(app: "firstdate")) }
        #expect(notAllowed?.code == .failedPrecondition && notAllowed?.reason == "SIGN_IN_METHOD_NOT_ALLOWED")
        let unknown = await rpcError { _ = try await harness.client.signInAnonymously(.init(app: "nope")) }
        #expect(unknown?.code == .invalidArgument && unknown?.reason == "UNKNOWN_APP")
        await harness.stop()
    }

    @Test func emailSignUp_thenSignIn_sameAccount_emailNormalizedAndUniquePerApp() async throws {
        let harness = try await IdentityHarness.start()
        let email = IdentityHarness.uniqueEmail()
        let signUp = try await harness.client.signUpWithEmail(.init(app: "firstdate", email: email, password: "correct horse battery"))
        let account = try #require(signUp.account)
        #expect(account.email == email && !account.anonymous && account.role == "viewer")
        let signIn = try await harness.client.signInWithEmail(.init(app: "firstdate", email: "  " + email.uppercased(),
                                                                    password: "correct horse battery"))
        #expect(signIn.account?.id == account.id)
        #expect(signIn.sessionID != signUp.sessionID)
        let taken = await rpcError {
            _ = try await harness.client.signUpWithEmail(.init(app: "firstdate", email: email, password: "another password"))
        }
        #expect(taken?.code == .alreadyExists && taken?.reason == "EMAIL_TAKEN")
        // The same email in another app is another account.
        let elite = try await harness.client.signUpWithEmail(.init(app: "elite", email: email, password: "correct horse battery"))
        #expect(elite.account?.id != account.id && elite.account?.membershipStatus == "waitlisted")
        await harness.stop()
    }

    @Test func signUp_shortPassword_isWeakPassword() async throws {
        let harness = try await IdentityHarness.start()
        let error = await rpcError {
            _ = try await harness.client.signUpWithEmail(.init(app: "firstdate", email: IdentityHarness.uniqueEmail(), password: "short"))
        }
        #expect(error?.code == .invalidArgument && error?.reason == "WEAK_PASSWORD")
        await harness.stop()
    }

    @Test func signIn_wrongPasswordOrUnknownEmail_isInvalidCredentials() async throws {
        let harness = try await IdentityHarness.start()
        let email = IdentityHarness.uniqueEmail()
        _ = try await harness.client.signUpWithEmail(.init(app: "firstdate", email: email, password: "correct horse battery"))
        for (address, password) in [(email, "wrong password!"), (IdentityHarness.uniqueEmail(), "correct horse battery")] {
            let error = await rpcError {
                _ = try await harness.client.signInWithEmail(.init(app: "firstdate", email: address, password: password))
            }
            #expect(error?.code == .unauthenticated && error?.reason == "INVALID_CREDENTIALS")
        }
        await harness.stop()
    }

    @Test func signIn_afterFiveFailures_isLockedEvenWithTheRightPassword() async throws {
        let harness = try await IdentityHarness.start()
        let email = IdentityHarness.uniqueEmail()
        _ = try await harness.client.signUpWithEmail(.init(app: "firstdate", email: email, password: "correct horse battery"))
        for _ in 0..<5 {
            let error = await rpcError {
                _ = try await harness.client.signInWithEmail(.init(app: "firstdate", email: email, password: "wrong password!"))
            }
            #expect(error?.reason == "INVALID_CREDENTIALS")
        }
        for password in ["correct horse battery", "wrong password!"] {
            let locked = await rpcError {
                _ = try await harness.client.signInWithEmail(.init(app: "firstdate", email: email, password: password))
            }
            #expect(locked?.code == .resourceExhausted && locked?.reason == "TOO_MANY_ATTEMPTS")
            #expect(Int(locked?.details["retry_after_seconds"] ?? "") ?? 0 > 0)
        }
        await harness.stop()
    }

    @Test(arguments: ["", "plainaddress", "a@b", "@example.com", "ana@", "ana@exa mple.com", "ana@@example.com",
                      "ana@-example.com", ".ana@example.com", "ana@example..com", "ana@exämple.com"])
    func signUp_malformedEmail_isInvalidEmail(_ email: String) async throws {
        let harness = try await IdentityHarness.start()
        let error = await rpcError {
            _ = try await harness.client.signUpWithEmail(.init(app: "firstdate", email: email, password: "correct horse battery"))
        }
        #expect(error?.code == .invalidArgument && error?.reason == "INVALID_EMAIL")
        await harness.stop()
    }
}

/// Accounts list how they can sign in: none for an anonymous device account, "email" for an
/// email sign-up.
extension SignInTests {
    @Test func signInMethods_emptyForAnonymous_emailForEmailSignUp() async throws {
        let harness = try await IdentityHarness.start()
        let anonymous = try await harness.client.signInAnonymously(.init(app: "swivo"))
        #expect(anonymous.account?.signInMethods == [] && anonymous.account?.phone == "")
        let email = try await harness.client.signUpWithEmail(.init(app: "firstdate", email: IdentityHarness.uniqueEmail(),
                                                                   password: "correct horse battery"))
        #expect(email.account?.signInMethods == ["email"])
        await harness.stop()
    }
}
