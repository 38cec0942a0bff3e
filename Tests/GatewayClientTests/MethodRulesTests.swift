import Contracts
import GatewayClient
import RPC
import Testing

/// Each method's rules as the server sees them, against a scripted server: which calls come
/// again after UNAVAILABLE (reads and idempotent writes) and which are sent once (an SMS, a
/// code, a sign-in, a link, a deletion); a refused code or ID token is not taken for a refused
/// session; deletion clears the store only once the server deleted.
@Suite struct MethodRulesTests {
    static let signedIn = ScriptedIdentityService.stored(access: "a1", refresh: "r1")

    /// One app call of the methods added after the first slice.
    enum Call: String, CaseIterable, Sendable {
        case signInWithProvider = "SignInWithProvider"
        case startPhoneSignIn = "StartPhoneSignIn"
        case verifyPhoneCode = "VerifyPhoneCode"
        case linkProvider = "LinkProvider"
        case linkEmail = "LinkEmail"
        case linkPhone = "LinkPhone"
        case deleteAccount = "DeleteAccount"
        case registerPushToken = "RegisterPushToken"
        case refreshPushToken = "RefreshPushToken"
        case unregisterPushToken = "UnregisterPushToken"
        case listMyPushTokens = "ListMyPushTokens"

        /// How often the client sends it when the server is unreachable every time, with the
        /// test policy's four attempts.
        var attemptsWhenUnavailable: Int {
            switch self {
            case .registerPushToken, .unregisterPushToken, .listMyPushTokens: 4
            default: 1
            }
        }

        func run(_ client: GatewayClient) async throws {
            let nonce = ProviderNonce()
            switch self {
            case .signInWithProvider: _ = try await client.identity.signInWithProvider(.apple, idToken: "t", rawNonce: nonce.raw)
            case .startPhoneSignIn: _ = try await client.identity.startPhoneSignIn("+14155550123")
            case .verifyPhoneCode: _ = try await client.identity.verifyPhoneCode("123456", phone: "+14155550123")
            case .linkProvider: _ = try await client.identity.linkProvider(.google, idToken: "t", rawNonce: nonce.raw)
            case .linkEmail: _ = try await client.identity.linkEmail("a@example.com", password: "long enough password")
            case .linkPhone: _ = try await client.identity.linkPhone("+14155550123", code: "123456")
            case .deleteAccount: try await client.identity.deleteAccount()
            case .registerPushToken: _ = try await client.devices.registerPushToken("ab", platform: .apns, deviceID: "d")
            case .refreshPushToken: _ = try await client.devices.refreshPushToken(from: "ab", to: "cd")
            case .unregisterPushToken: try await client.devices.unregisterPushToken("ab")
            case .listMyPushTokens: _ = try await client.devices.listMyPushTokens()
            }
        }
    }

    @Test(arguments: Call.allCases)
    func unavailable_isRetriedOnlyWhenRepeatingIsHarmless(_ call: Call) async throws {
        let service = ScriptedMethodsService { _, _ in throw ScriptedIdentityService.unavailable }
        let store = InMemoryTokenStore(Self.signedIn)
        let error = try await withScriptedServer(service, store: store) { client in
            await gatewayError { try await call.run(client) }
        }
        #expect(error?.code == .unavailable)
        #expect(service.methods == Array(repeating: call.rawValue, count: call.attemptsWhenUnavailable))
        #expect(store.load() == Self.signedIn)
    }

    @Test(arguments: [(Call.linkPhone, "INVALID_CODE"), (.linkPhone, "CODE_EXPIRED"),
                      (.linkProvider, "ID_TOKEN_BAD_SIGNATURE"), (.linkProvider, "ID_TOKEN_NONCE_MISMATCH")])
    func aRefusedCodeOrIDToken_isNotARefusedSession_soItIsSentOnce(_ call: Call, _ reason: String) async throws {
        let service = ScriptedMethodsService { _, _ in throw ScriptedIdentityService.unauthenticated(reason) }
        let store = InMemoryTokenStore(Self.signedIn)
        let error = try await withScriptedServer(service, store: store) { client in
            await gatewayError { try await call.run(client) }
        }
        #expect(error?.code == .unauthenticated && error?.reason == reason)
        #expect(service.methods == [call.rawValue])
        #expect(store.load() == Self.signedIn)
    }

    @Test(arguments: [Call.linkPhone, .linkProvider, .linkEmail, .deleteAccount, .registerPushToken])
    func aRefusedAccessToken_onAnAuthenticatedCall_refreshesAndSendsItAgain(_ call: Call) async throws {
        let service = ScriptedMethodsService { method, attempt in
            if method == call.rawValue && attempt == 1 { throw ScriptedIdentityService.unauthenticated("TOKEN_EXPIRED") }
        }
        let store = InMemoryTokenStore(Self.signedIn)
        try await withScriptedServer(service, store: store) { client in
            try await call.run(client)
        }
        #expect(service.methods == [call.rawValue, "RefreshSession", call.rawValue])
        #expect(service.calls.map(\.bearer) == ["a1", nil, "a2"])
    }

    @Test(arguments: [Call.signInWithProvider, .verifyPhoneCode])
    func signIns_saveTheSessionTheyStart(_ call: Call) async throws {
        let store = InMemoryTokenStore()
        try await withScriptedServer(ScriptedMethodsService(), store: store) { client in
            try await call.run(client)
        }
        #expect(store.load()?.accessToken == "s1")
        #expect(store.load()?.refreshToken == "t1")
    }

    @Test func startPhoneSignIn_savesNoSession_andCarriesNoToken() async throws {
        let service = ScriptedMethodsService()
        let store = InMemoryTokenStore(Self.signedIn)
        try await withScriptedServer(service, store: store) { client in
            try await Call.startPhoneSignIn.run(client)
        }
        #expect(service.calls.map(\.bearer) == [nil])
        #expect(store.load() == Self.signedIn)
    }

    @Test func deleteAccount_clearsTheStore_onlyOnceTheServerDeleted() async throws {
        let store = InMemoryTokenStore(Self.signedIn)
        let refused = try await withScriptedServer(ScriptedMethodsService { _, _ in
            throw RPCError(code: .internal, message: "database down")
        }, store: store) { client in
            await gatewayError { try await client.identity.deleteAccount() }
        }
        #expect(refused?.code == .internal)
        #expect(store.load() == Self.signedIn)

        try await withScriptedServer(ScriptedMethodsService(), store: store) { client in
            try await client.identity.deleteAccount()
            #expect(try client.currentSession() == nil)
        }
        #expect(store.load() == nil)
    }
}
