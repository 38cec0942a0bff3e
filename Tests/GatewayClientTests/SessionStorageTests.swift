import Contracts
import GatewayClient
import RPC
import Testing

/// What sign-in and sign-out do to the token store.
@Suite struct SessionStorageTests {
    @Test func signIn_savesTheSession_signOut_tellsTheServerAndClearsIt() async throws {
        let service = ScriptedIdentityService()
        let store = InMemoryTokenStore()
        try await withScriptedServer(service, store: store) { client in
            let account = try await client.identity.signInAnonymously()
            #expect(account.username == "anon-test")
            #expect(store.load()?.accessToken == "a1")
            #expect(try client.currentSession()?.refreshToken == "r1")
            try await client.identity.signOut()
            #expect(try client.currentSession() == nil)
        }
        #expect(store.load() == nil)
        #expect(service.calls.map(\.method) == ["SignInAnonymously", "SignOut"])
        #expect(service.calls.last?.bearer == "a1")
    }

    @Test func signOut_serverUnavailable_stillSignsOutHere_andSaysSo() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.signOut = { _, _ in throw ScriptedIdentityService.unavailable }
        }
        let store = InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1", refresh: "r1"))
        let error = try await withScriptedServer(service, store: store) { client in
            await gatewayError { try await client.identity.signOut() }
        }
        #expect(error?.code == .unavailable)
        #expect(service.count("SignOut") == 1)
        #expect(store.load() == nil)
    }

    @Test func signOutOfAnotherSession_keepsThisOne() async throws {
        let service = ScriptedIdentityService()
        let store = InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1", refresh: "r1"))
        try await withScriptedServer(service, store: store) { client in
            try await client.identity.signOut(sessionID: "00000000-0000-4000-8000-0000000000bb")
        }
        #expect(store.load()?.accessToken == "a1")
    }

    @Test func aClientStartsWithTheStoredSession() async throws {
        let service = ScriptedIdentityService()
        let store = InMemoryTokenStore(ScriptedIdentityService.stored(access: "a7", refresh: "r7"))
        try await withScriptedServer(service, store: store) { client in
            _ = try await client.identity.getAccount()
        }
        #expect(service.calls.map(\.bearer) == ["a7"])
    }

    @Test func storedSession_descriptionHidesTheTokens() {
        let session = ScriptedIdentityService.stored(access: "secret-access", refresh: "secret-refresh")
        #expect(!session.description.contains("secret"))
        #expect(session.description.contains(session.accountID))
    }

    @Test func storedSession_fromAnIncompleteResponse_isNil() {
        var response = ScriptedIdentityService.session(access: "a", refresh: "r")
        response.refreshToken = ""
        #expect(StoredSession(response) == nil)
        response = ScriptedIdentityService.session(access: "a", refresh: "r")
        response.account = nil
        #expect(StoredSession(response) == nil)
    }
}
