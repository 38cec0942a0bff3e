import Contracts
import GatewayClient
import GatewayClientHTTP2
import RPC
import Testing

/// Retries and deadlines against a scripted server: reads are retried on UNAVAILABLE and
/// DEADLINE_EXCEEDED within the policy's bounds; writes are sent once.
@Suite struct RetryTests {
    static let signedIn = ScriptedIdentityService.stored(access: "a1", refresh: "r1")

    @Test func read_unavailableTwiceThenOK_succeedsOnTheThirdAttempt() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.getAccount = { attempt, _ in
                if attempt <= 2 { throw ScriptedIdentityService.unavailable }
                return ScriptedIdentityService.account
            }
        }
        try await withScriptedServer(service, store: InMemoryTokenStore(Self.signedIn)) { client in
            let account = try await client.identity.getAccount()
            #expect(account.id == ScriptedIdentityService.account.id)
        }
        #expect(service.count("GetAccount") == 3)
        #expect(service.calls.allSatisfy { $0.bearer == "a1" })
    }

    @Test func read_unavailableEveryTime_givesUpAfterMaxAttempts() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.listSessions = { _, _ in throw ScriptedIdentityService.unavailable }
        }
        let error = try await withScriptedServer(service, store: InMemoryTokenStore(Self.signedIn),
                                                 configure: { $0.retryPolicy.maxAttempts = 3 }) { client in
            await gatewayError { _ = try await client.identity.listSessions() }
        }
        #expect(error?.code == .unavailable)
        #expect(service.count("ListSessions") == 3)
    }

    @Test func write_unavailable_isSentOnce_andSavesNoSession() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.signInAnonymously = { _, _ in throw ScriptedIdentityService.unavailable }
        }
        let store = InMemoryTokenStore()
        let error = try await withScriptedServer(service, store: store) { client in
            await gatewayError { _ = try await client.identity.signInAnonymously() }
        }
        #expect(error?.code == .unavailable)
        #expect(service.count("SignInAnonymously") == 1)
        #expect(store.load() == nil)
    }

    @Test(.timeLimit(.minutes(1)))
    func write_pastItsDeadline_failsDeadlineExceeded_onTime_andIsSentOnce() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.signInAnonymously = { _, _ in
                try await Task.sleep(for: .seconds(3))
                return ScriptedIdentityService.session(access: "a1", refresh: "r1")
            }
        }
        let clock = ContinuousClock()
        let start = clock.now
        let error = try await withScriptedServer(service) { client in
            await gatewayError { _ = try await client.identity.signInAnonymously(deadline: .milliseconds(300)) }
        }
        let elapsed = clock.now - start
        #expect(error?.code == .deadlineExceeded)
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(2), "took \(elapsed)")
        #expect(service.count("SignInAnonymously") == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func read_pastItsDeadline_isRetried_andTheFasterAttemptWins() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.getAccount = { attempt, _ in
                if attempt == 1 { try await Task.sleep(for: .seconds(3)) }
                return ScriptedIdentityService.account
            }
        }
        let clock = ContinuousClock()
        let start = clock.now
        try await withScriptedServer(service, store: InMemoryTokenStore(Self.signedIn)) { client in
            _ = try await client.identity.getAccount(deadline: .milliseconds(300))
        }
        #expect(clock.now - start < .seconds(2))
        #expect(service.count("GetAccount") == 2)
    }

    @Test(.timeLimit(.minutes(1)))
    func retries_endWithinMaxTotalTime() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.getAccount = { _, _ in throw ScriptedIdentityService.unavailable }
        }
        let clock = ContinuousClock()
        let start = clock.now
        let error = try await withScriptedServer(service, store: InMemoryTokenStore(Self.signedIn), configure: {
            $0.retryPolicy = RetryPolicy(maxAttempts: 1000, initialBackoff: .milliseconds(50), maxBackoff: .milliseconds(50),
                                         jitter: 0, maxTotalTime: .milliseconds(600))
        }) { client in
            await gatewayError { _ = try await client.identity.getAccount() }
        }
        let elapsed = clock.now - start
        #expect(error?.code == .unavailable)
        #expect(elapsed < .seconds(1), "took \(elapsed)")
        #expect((3...13).contains(service.count("GetAccount")), "\(service.count("GetAccount")) attempts")
    }

    @Test func serverError_keepsCodeMessageReasonAndDetails_andIsNotRetried() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.getAccount = { _, _ in
                throw RPCError(code: .failedPrecondition, message: "finish onboarding first", reason: "ONBOARDING_REQUIRED",
                               details: ["step": "photos"])
            }
        }
        let error = try await withScriptedServer(service, store: InMemoryTokenStore(Self.signedIn)) { client in
            await gatewayError { _ = try await client.identity.getAccount() }
        }
        #expect(error?.code == .failedPrecondition)
        #expect(error?.message == "finish onboarding first")
        #expect(error?.reason == "ONBOARDING_REQUIRED")
        #expect(error?.details["step"] == "photos")
        #expect(service.count("GetAccount") == 1)
    }

    @Test func serverDown_isUnavailable_afterTheRetries() async throws {
        // A port nothing listens on: every attempt fails to connect.
        var configuration = GatewayConfiguration(host: "127.0.0.1", port: 1, security: .plaintext, app: "swivo",
                                                 retryPolicy: .fast)
        configuration.defaultDeadline = .seconds(2)
        let client = try GatewayClient(configuration: configuration, tokenStore: InMemoryTokenStore(Self.signedIn))
        defer { client.close() }
        let error = await gatewayError { _ = try await client.identity.getAccount() }
        #expect(error?.code == .unavailable)
    }
}
