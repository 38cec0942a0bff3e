import Contracts
import Foundation
import GatewayClient
import RPC
import Testing

/// The identity executable, driven only through GatewayClient: every sign-in method it offers
/// today, sessions, refresh rotation and reuse detection, and the unhappy paths a user meets.
@Suite(.identityService, .timeLimit(.minutes(2)))
struct EndToEndIdentityTests {
    static let password = "correct horse battery staple"

    // MARK: Sign-in

    @Test func anonymousSignIn_givesAnAnonAccount_andASessionThatWorks() async throws {
        let client = try EndToEnd.client(app: "swivo", deviceName: "phone")
        defer { client.close() }
        let account = try await client.identity.signInAnonymously()
        #expect(account.anonymous)
        #expect(account.app == "swivo")
        #expect(account.username.hasPrefix("anon-"))

        #expect(try await client.identity.getAccount().id == account.id)
        let sessions = try await client.identity.listSessions()
        #expect(sessions.count == 1)
        #expect(sessions.first?.current == true)
        #expect(sessions.first?.deviceName == "phone")
        #expect(try client.currentSession()?.accountID == account.id)
    }

    @Test func emailSignUp_thenSignInOnAnotherDevice_isTheSameAccount_withTwoSessions() async throws {
        let email = EndToEnd.uniqueEmail()
        let phone = try EndToEnd.client(app: "momento", deviceName: "phone")
        let tablet = try EndToEnd.client(app: "momento", deviceName: "tablet")
        defer { phone.close(); tablet.close() }

        let created = try await phone.identity.signUpWithEmail(email.uppercased(), password: Self.password)
        #expect(!created.anonymous)
        #expect(created.email == email)
        let signedIn = try await tablet.identity.signInWithEmail(email, password: Self.password)
        #expect(signedIn.id == created.id)

        let sessions = try await phone.identity.listSessions()
        #expect(Set(sessions.map(\.deviceName)) == ["phone", "tablet"])
        #expect(sessions.filter(\.current).map(\.deviceName) == ["phone"])
        #expect(try await tablet.identity.getAccount().email == email)
    }

    @Test func aRelaunchedApp_picksUpTheSessionFromItsFileStore() async throws {
        let folder = NSTemporaryDirectory() + "rv-e2e-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/session.json"

        let firstLaunch = try EndToEnd.client(app: "unseen", store: FileTokenStore(path: path))
        let account = try await firstLaunch.identity.signInAnonymously()
        firstLaunch.close()

        let secondLaunch = try EndToEnd.client(app: "unseen", store: FileTokenStore(path: path))
        defer { secondLaunch.close() }
        #expect(try await secondLaunch.identity.getAccount().id == account.id)
    }

    @Test func signingKeys_arePublic_andNameTheirKid() async throws {
        let client = try EndToEnd.client(app: "swivo")
        defer { client.close() }
        let keys = try await client.identity.getSigningKeys()
        #expect(!keys.keys.isEmpty)
        #expect(keys.keys.allSatisfy { !$0.kid.isEmpty && $0.alg == "ES256" })
        #expect(keys.maxAgeSeconds > 0)
    }

    // MARK: Tokens

    @Test func refresh_rotatesBothTokens_inTheSameSession() async throws {
        let client = try EndToEnd.client(app: "swivo")
        defer { client.close() }
        _ = try await client.identity.signInAnonymously()
        let before = try #require(try client.currentSession())
        let after = try await client.identity.refreshSession()
        #expect(after.sessionID == before.sessionID)
        #expect(after.accessToken != before.accessToken)
        #expect(after.refreshToken != before.refreshToken)
        #expect(try client.currentSession() == after)
        _ = try await client.identity.getAccount()
    }

    @Test func aSpentRefreshToken_isReuse_whichRevokesTheSessionEverywhere() async throws {
        let client = try EndToEnd.client(app: "swivo")
        defer { client.close() }
        _ = try await client.identity.signInAnonymously()
        let spent = try #require(try client.currentSession())
        try await client.identity.refreshSession()

        // A copy of the old session, say restored from a backup: its refresh token was spent.
        var copy = spent
        copy.accessTokenExpiresAt = Date(timeIntervalSinceNow: -60)
        let copyStore = InMemoryTokenStore(copy)
        let replay = try EndToEnd.client(app: "swivo", store: copyStore)
        defer { replay.close() }
        let reused = await gatewayError { _ = try await replay.identity.getAccount() }
        #expect(reused?.isSignedOut == true)
        #expect(reused?.details["cause"] == "REFRESH_TOKEN_REUSED")
        #expect(copyStore.load() == nil)

        // The family is revoked: the rightful holder's next refresh is refused too.
        let revoked = await gatewayError { try await client.identity.refreshSession() }
        #expect(revoked?.isSignedOut == true)
        #expect(revoked?.details["cause"] == "SESSION_REVOKED")
        #expect(try client.currentSession() == nil)
    }

    @Test func anExpiredAccessToken_isRefreshedTransparently() async throws {
        let client = try EndToEnd.client(app: "unseen")
        defer { client.close() }
        let account = try await client.identity.signInAnonymously()
        var expired = try #require(try client.currentSession())
        expired.accessTokenExpiresAt = Date(timeIntervalSinceNow: -1)
        let store = InMemoryTokenStore(expired)
        let later = try EndToEnd.client(app: "unseen", store: store)
        defer { later.close() }

        #expect(try await later.identity.getAccount().id == account.id)
        let refreshed = try #require(store.load())
        #expect(refreshed.sessionID == expired.sessionID)
        #expect(refreshed.refreshToken != expired.refreshToken)
        #expect(refreshed.accessTokenExpiresAt > Date())
    }

    @Test(arguments: ["garbage", "forged"])
    func aRefusedAccessToken_takesTheRefreshPath(_ kind: String) async throws {
        let client = try EndToEnd.client(app: "swivo")
        defer { client.close() }
        let account = try await client.identity.signInAnonymously()
        var session = try #require(try client.currentSession())
        switch kind {
        case "garbage":
            session.accessToken = "not-a-jwt"
        default:
            // Same header and claims, another signature: what a forger without the key can make.
            let parts = session.accessToken.split(separator: ".")
            session.accessToken = "\(parts[0]).\(parts[1]).\(String(repeating: "A", count: parts[2].count))"
        }
        let store = InMemoryTokenStore(session)
        let forged = try EndToEnd.client(app: "swivo", store: store)
        defer { forged.close() }

        #expect(try await forged.identity.getAccount().id == account.id)
        #expect(store.load()?.accessToken != session.accessToken)
        #expect(store.load()?.refreshToken != session.refreshToken)
    }

    @Test func twentyCallsWithARefusedToken_refreshOnce_orTheServerWouldRevokeTheSession() async throws {
        let client = try EndToEnd.client(app: "swivo")
        defer { client.close() }
        _ = try await client.identity.signInAnonymously()
        var session = try #require(try client.currentSession())
        session.accessToken = "stale"
        let store = InMemoryTokenStore(session)
        let app = try EndToEnd.client(app: "swivo", store: store)
        defer { app.close() }

        let failures = await withTaskGroup(of: GatewayError?.self) { group in
            for _ in 0..<20 {
                group.addTask { await gatewayError { _ = try await app.identity.getAccount() } }
            }
            return await group.compactMap { $0 }.reduce(into: [GatewayError]()) { $0.append($1) }
        }
        #expect(failures.isEmpty, "\(failures)")
        // A second refresh with the same token would have been REFRESH_TOKEN_REUSED.
        try await app.identity.refreshSession()
    }

    // MARK: Sign-out

    @Test func signOut_endsTheSessionOnTheServer_andClearsTheStore() async throws {
        let store = InMemoryTokenStore()
        let client = try EndToEnd.client(app: "swivo", store: store)
        defer { client.close() }
        _ = try await client.identity.signInAnonymously()
        var ended = try #require(store.load())
        try await client.identity.signOut()
        #expect(store.load() == nil)
        let afterSignOut = await gatewayError { _ = try await client.identity.getAccount() }
        #expect(afterSignOut?.isSignedOut == true)

        ended.accessTokenExpiresAt = Date(timeIntervalSinceNow: -1)
        let zombie = try EndToEnd.client(app: "swivo", store: InMemoryTokenStore(ended))
        defer { zombie.close() }
        let refused = await gatewayError { _ = try await zombie.identity.getAccount() }
        #expect(refused?.isSignedOut == true)
        #expect(refused?.details["cause"] == "SESSION_REVOKED")
    }

    @Test func signOutEverywhere_endsTheOtherDevicesSessions() async throws {
        let email = EndToEnd.uniqueEmail()
        let phone = try EndToEnd.client(app: "firstdate", deviceName: "phone")
        let laptop = try EndToEnd.client(app: "firstdate", deviceName: "laptop")
        defer { phone.close(); laptop.close() }
        _ = try await phone.identity.signUpWithEmail(email, password: Self.password)
        _ = try await laptop.identity.signInWithEmail(email, password: Self.password)

        #expect(try await phone.identity.signOutEverywhere() == 2)
        #expect(try phone.currentSession() == nil)
        let laptopRefresh = await gatewayError { try await laptop.identity.refreshSession() }
        #expect(laptopRefresh?.isSignedOut == true)
    }

    @Test func signOutOfAnotherDevice_leavesThisOneSignedIn() async throws {
        let email = EndToEnd.uniqueEmail()
        let phone = try EndToEnd.client(app: "momento", deviceName: "phone")
        let laptop = try EndToEnd.client(app: "momento", deviceName: "laptop")
        defer { phone.close(); laptop.close() }
        _ = try await phone.identity.signUpWithEmail(email, password: Self.password)
        _ = try await laptop.identity.signInWithEmail(email, password: Self.password)
        let laptopSession = try #require(try await phone.identity.listSessions().first { !$0.current })

        try await phone.identity.signOut(sessionID: laptopSession.id)
        #expect(try await phone.identity.listSessions().map(\.deviceName) == ["phone"])
        let laptopRefresh = await gatewayError { try await laptop.identity.refreshSession() }
        #expect(laptopRefresh?.isSignedOut == true)
        let unknown = await gatewayError { try await phone.identity.signOut(sessionID: laptopSession.id) }
        #expect(unknown?.code == .notFound && unknown?.reason == "SESSION_NOT_FOUND")
    }

    // MARK: Unhappy paths

    @Test func theSeventhWrongPassword_isTooManyAttempts_andLocksEvenTheRightOne() async throws {
        let email = EndToEnd.uniqueEmail()
        let owner = try EndToEnd.client(app: "momento")
        let attacker = try EndToEnd.client(app: "momento")
        defer { owner.close(); attacker.close() }
        _ = try await owner.identity.signUpWithEmail(email, password: Self.password)

        var reasons: [String?] = []
        for attempt in 1...7 {
            let error = await gatewayError { _ = try await attacker.identity.signInWithEmail(email, password: "wrong guess \(attempt)") }
            reasons.append(error?.reason)
        }
        #expect(reasons == Array(repeating: "INVALID_CREDENTIALS", count: 5) + ["TOO_MANY_ATTEMPTS", "TOO_MANY_ATTEMPTS"])
        let locked = await gatewayError { _ = try await owner.identity.signInWithEmail(email, password: Self.password) }
        #expect(locked?.code == .resourceExhausted && locked?.reason == "TOO_MANY_ATTEMPTS")
        #expect(Int(locked?.details["retry_after_seconds"] ?? "") ?? 0 > 0)
        #expect(try attacker.currentSession() == nil)
    }

    @Test(arguments: ["plainaddress", "@example.com", "user@", "user@@example.com", "user name@example.com"])
    func aMalformedEmail_isInvalidEmail(_ email: String) async throws {
        let client = try EndToEnd.client(app: "momento")
        defer { client.close() }
        let error = await gatewayError { _ = try await client.identity.signUpWithEmail(email, password: Self.password) }
        #expect(error?.code == .invalidArgument && error?.reason == "INVALID_EMAIL")
        #expect(try client.currentSession() == nil)
    }

    @Test func aWeakPassword_isWeakPassword_namingTheMinimum() async throws {
        let client = try EndToEnd.client(app: "momento")
        defer { client.close() }
        let error = await gatewayError { _ = try await client.identity.signUpWithEmail(EndToEnd.uniqueEmail(), password: "short") }
        #expect(error?.code == .invalidArgument && error?.reason == "WEAK_PASSWORD")
        switch error?.identityReason {
        case .weakPassword?: break
        default: Issue.record("expected a typed WEAK_PASSWORD, got \(String(describing: error))")
        }
        #expect(error?.details["minimum_length"] == "10")
    }

    @Test func aTakenEmail_isEmailTaken_inThatAppOnly() async throws {
        let email = EndToEnd.uniqueEmail()
        let first = try EndToEnd.client(app: "momento")
        let second = try EndToEnd.client(app: "momento")
        let otherApp = try EndToEnd.client(app: "firstdate")
        defer { first.close(); second.close(); otherApp.close() }
        _ = try await first.identity.signUpWithEmail(email, password: Self.password)
        let taken = await gatewayError { _ = try await second.identity.signUpWithEmail(email, password: Self.password) }
        #expect(taken?.code == .alreadyExists && taken?.reason == "EMAIL_TAKEN")
        #expect(taken?.identityReason == .emailTaken)
        #expect(taken?.platformReason == nil)
        _ = try await otherApp.identity.signUpWithEmail(email, password: Self.password)
    }

    @Test func wrongApp_unknownApp_methodNotAllowed_andAnotherAppsAccount() async throws {
        let unknown = try EndToEnd.client(app: "no-such-app")
        let invitationOnly = try EndToEnd.client(app: "elite")
        let momento = try EndToEnd.client(app: "momento")
        let firstdate = try EndToEnd.client(app: "firstdate")
        defer { unknown.close(); invitationOnly.close(); momento.close(); firstdate.close() }

        let unknownApp = await gatewayError { _ = try await unknown.identity.signInAnonymously() }
        #expect(unknownApp?.code == .invalidArgument && unknownApp?.reason == "UNKNOWN_APP")
        let notAllowed = await gatewayError { _ = try await invitationOnly.identity.signInAnonymously() }
        #expect(notAllowed?.code == .failedPrecondition && notAllowed?.reason == "SIGN_IN_METHOD_NOT_ALLOWED")

        // Accounts belong to one app: a Momento account does not exist for FirstDate.
        let email = EndToEnd.uniqueEmail()
        _ = try await momento.identity.signUpWithEmail(email, password: Self.password)
        let otherApp = await gatewayError { _ = try await firstdate.identity.signInWithEmail(email, password: Self.password) }
        #expect(otherApp?.code == .unauthenticated && otherApp?.reason == "INVALID_CREDENTIALS")
        #expect(try firstdate.currentSession() == nil)
    }
}
