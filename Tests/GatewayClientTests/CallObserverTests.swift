import Contracts
import GatewayClient
import RPC
import Synchronization
import Testing

/// The configuration's call observer, against a scripted server: told once per call, when it
/// ends, with its method and its error; a read retried after UNAVAILABLE is one call.
@Suite struct CallObserverTests {
    @Test func aRetriedRead_isOneObservedCall_andARefusedWrite_isObservedWithItsError() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.getAccount = { attempt, _ in
                if attempt == 1 { throw ScriptedIdentityService.unavailable }
                return ScriptedIdentityService.account
            }
            scripts.signInAnonymously = { _, _ in throw ScriptedIdentityService.unavailable }
        }
        let seen = Mutex<[(String, Duration, StatusCode?)]>([])
        try await withScriptedServer(service, store: InMemoryTokenStore(RetryTests.signedIn), configure: { configuration in
            configuration.callObserver = { method, duration, error in seen.withLock { $0.append((method, duration, error?.code)) } }
        }) { client in
            _ = try await client.identity.getAccount()
            _ = await gatewayError { _ = try await client.identity.signInAnonymously() }
        }
        let calls = seen.withLock { $0 }
        #expect(calls.map(\.0) == ["Identity/GetAccount", "Identity/SignInAnonymously"])
        #expect(calls.map(\.2) == [nil, .unavailable])
        #expect(service.count("GetAccount") == 2, "the observed read took two attempts")
        #expect(calls.allSatisfy { $0.1 > .zero })
    }
}
