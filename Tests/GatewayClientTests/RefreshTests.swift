import Contracts
import GatewayClient
import RPC
import Synchronization
import Testing

/// The access token on authenticated calls, one refresh on UNAUTHENTICATED shared by every
/// call that needs it, proactive refresh of an expiring token, and sign-out when the refresh
/// itself is refused.
@Suite struct RefreshTests {
    /// A server that accepts only access tokens other than `a1` (the stale one every test
    /// starts with); its refreshes take 100 ms, so concurrent callers overlap with them.
    static func serverRejectingA1(refresh: ScriptedIdentityService.Script<Identity.AuthSession>? = nil) -> ScriptedIdentityService {
        ScriptedIdentityService { scripts in
            scripts.getAccount = { _, bearer in
                guard bearer != "a1" else { throw ScriptedIdentityService.unauthenticated() }
                return ScriptedIdentityService.account
            }
            scripts.refreshSession = refresh ?? { attempt, _ in
                try await Task.sleep(for: .milliseconds(100))
                return ScriptedIdentityService.session(access: "a\(attempt + 1)", refresh: "r\(attempt + 1)")
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func twentyCallsRefusedTogether_shareOneRefresh_andAllSucceed() async throws {
        let service = Self.serverRejectingA1()
        let store = InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1", refresh: "r1"))
        let outcomes = try await withScriptedServer(service, store: store) { client in
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask { (try? await client.identity.getAccount()) != nil }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
        }
        #expect(outcomes == Array(repeating: true, count: 20))
        #expect(service.count("RefreshSession") == 1)
        #expect(service.calls.filter { $0.method == "RefreshSession" }.map(\.refreshToken) == ["r1"])
        #expect(service.calls.filter { $0.method == "GetAccount" && $0.bearer != "a1" }.allSatisfy { $0.bearer == "a2" })
        #expect(store.load()?.accessToken == "a2")
        #expect(store.load()?.refreshToken == "r2")
    }

    @Test(.timeLimit(.minutes(1)))
    func refreshRefused_signsOutEveryWaitingCall_andClearsTheStore() async throws {
        let service = Self.serverRejectingA1(refresh: { _, _ in
            try await Task.sleep(for: .milliseconds(100))
            throw ScriptedIdentityService.unauthenticated("REFRESH_TOKEN_REUSED")
        })
        let store = InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1", refresh: "r1"))
        let errors = try await withScriptedServer(service, store: store) { client in
            await withTaskGroup(of: GatewayError?.self) { group in
                for _ in 0..<20 {
                    group.addTask { await gatewayError { _ = try await client.identity.getAccount() } }
                }
                return await group.reduce(into: [GatewayError?]()) { $0.append($1) }
            }
        }
        #expect(errors.count == 20)
        #expect(errors.allSatisfy { $0?.isSignedOut == true })
        #expect(errors.allSatisfy { $0?.details["cause"] == "REFRESH_TOKEN_REUSED" || $0?.details["cause"] == "NO_SESSION" })
        #expect(service.count("RefreshSession") == 1)
        #expect(store.load() == nil)
    }

    @Test func expiredAccessToken_isRefreshedBeforeTheCall() async throws {
        let service = Self.serverRejectingA1()
        let store = InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1", refresh: "r1", lifetime: -60))
        try await withScriptedServer(service, store: store) { client in
            _ = try await client.identity.getAccount()
        }
        #expect(service.calls.map(\.method) == ["RefreshSession", "GetAccount"])
        #expect(service.calls.last?.bearer == "a2")
    }

    @Test func tokenExpiringWithinTheMargin_isRefreshedEarly_butStillUsedIfRefreshIsUnavailable() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.refreshSession = { _, _ in throw ScriptedIdentityService.unavailable }
        }
        let store = InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1", refresh: "r1", lifetime: 10))
        try await withScriptedServer(service, store: store) { client in
            _ = try await client.identity.getAccount()
        }
        #expect(service.calls.map(\.method) == ["RefreshSession", "GetAccount"])
        #expect(service.calls.last?.bearer == "a1")
        #expect(store.load()?.refreshToken == "r1")
    }

    @Test func stillRefusedAfterTheRefresh_surfacesTheError_afterOneRefresh() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.getAccount = { _, _ in throw ScriptedIdentityService.unauthenticated("ACCOUNT_NOT_FOUND") }
        }
        let store = InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1", refresh: "r1"))
        let error = try await withScriptedServer(service, store: store) { client in
            await gatewayError { _ = try await client.identity.getAccount() }
        }
        #expect(error?.code == .unauthenticated && error?.reason == "ACCOUNT_NOT_FOUND")
        #expect(service.calls.map(\.method) == ["GetAccount", "RefreshSession", "GetAccount"])
        #expect(store.load()?.accessToken == "a2")
    }

    /// A token older than a change of the account's claims (TOKEN_STALE) is refreshed once and
    /// the call repeated with the new token.
    @Test func staleToken_isRefreshedOnce_andTheCallSucceedsWithTheNewToken() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.getAccount = { _, bearer in
                guard bearer != "a1" else { throw ScriptedIdentityService.unauthenticated("TOKEN_STALE") }
                return ScriptedIdentityService.account
            }
        }
        let store = InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1", refresh: "r1"))
        let account = try await withScriptedServer(service, store: store) { client in
            try await client.identity.getAccount()
        }
        #expect(account == ScriptedIdentityService.account)
        #expect(service.calls.map(\.method) == ["GetAccount", "RefreshSession", "GetAccount"])
        #expect(service.calls.last?.bearer == "a2")
        #expect(store.load()?.accessToken == "a2")
    }

    /// A token of a revoked session (TOKEN_REVOKED): the one refresh is refused too, so the user
    /// is signed out and the stored session cleared.
    @Test func revokedToken_refreshIsRefused_signsOut() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.getAccount = { _, _ in throw ScriptedIdentityService.unauthenticated("TOKEN_REVOKED") }
            scripts.refreshSession = { _, _ in throw ScriptedIdentityService.unauthenticated("SESSION_REVOKED") }
        }
        let store = InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1", refresh: "r1"))
        let error = try await withScriptedServer(service, store: store) { client in
            await gatewayError { _ = try await client.identity.getAccount() }
        }
        #expect(error?.isSignedOut == true && error?.details["cause"] == "SESSION_REVOKED")
        #expect(service.calls.map(\.method) == ["GetAccount", "RefreshSession"])
        #expect(store.load() == nil)
    }

    @Test func refreshUnavailable_keepsTheSession_andTheReadRetriesThrough() async throws {
        let service = Self.serverRejectingA1(refresh: { attempt, _ in
            if attempt == 1 { throw ScriptedIdentityService.unavailable }
            return ScriptedIdentityService.session(access: "a9", refresh: "r9")
        })
        let store = InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1", refresh: "r1"))
        try await withScriptedServer(service, store: store) { client in
            _ = try await client.identity.getAccount()
        }
        #expect(service.calls.filter { $0.method == "RefreshSession" }.map(\.refreshToken) == ["r1", "r1"])
        #expect(store.load()?.refreshToken == "r9")
    }

    @Test func noSession_isSignedOut_withoutCallingTheServer() async throws {
        let service = ScriptedIdentityService()
        let error = try await withScriptedServer(service) { client in
            await gatewayError { _ = try await client.identity.listSessions() }
        }
        #expect(error?.isSignedOut == true)
        #expect(error?.details["cause"] == "NO_SESSION")
        #expect(service.calls.isEmpty)
    }

    @Test func publicCalls_carryNoToken() async throws {
        let service = ScriptedIdentityService()
        try await withScriptedServer(service, store: InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1", refresh: "r1"))) { client in
            _ = try await client.identity.signInAnonymously()
        }
        #expect(service.calls.map(\.bearer) == [nil])
    }
}
