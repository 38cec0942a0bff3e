import Contracts
import GatewayClient
import GatewayClientHTTP2
import RPC
import Testing

/// The gateway client and W3C Trace Context: every call sends a `traceparent`, the attempts of
/// one call share its trace, an app can pass its own, and a failure names the trace.
@Suite struct GatewayTraceContextTests {
    static let signedIn = ScriptedIdentityService.stored(access: "a1", refresh: "r1")

    @Test func retriedCall_sendsOneTraceOnEveryAttempt_andItsFailureNamesIt() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.listSessions = { _, _ in throw ScriptedIdentityService.unavailable }
        }
        let error = try await withScriptedServer(service, store: InMemoryTokenStore(Self.signedIn),
                                                 configure: { $0.retryPolicy.maxAttempts = 3 }) { client in
            await gatewayError { _ = try await client.identity.listSessions() }
        }
        let headers = service.calls.map(\.traceparent)
        try #require(headers.count == 3)
        let parents = headers.compactMap { $0.flatMap(TraceParent.init(header:)) }
        try #require(parents.count == 3, "\(headers)")
        #expect(Set(parents.map(\.traceID)).count == 1)
        // The client records no span: the services' sampling decides.
        #expect(parents.allSatisfy { !$0.isSampled })
        let failure = try #require(error)
        #expect(failure.code == .unavailable)
        #expect(failure.traceID == parents[0].traceID.hex)
        #expect(failure.description.contains(parents[0].traceID.hex))
    }

    @Test func separateCalls_areSeparateTraces() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.getAccount = { _, _ in ScriptedIdentityService.account }
        }
        try await withScriptedServer(service, store: InMemoryTokenStore(Self.signedIn)) { client in
            _ = try await client.identity.getAccount()
            _ = try await client.identity.getAccount()
        }
        let traces = service.calls.compactMap { $0.traceparent.flatMap(TraceParent.init(header:))?.traceID }
        #expect(traces.count == 2)
        #expect(Set(traces).count == 2)
    }

    @Test func appsOwnTraceparent_isSentAsGiven_andAnInvalidOneIsReplaced() async throws {
        let service = ScriptedIdentityService { scripts in
            scripts.getAccount = { _, _ in ScriptedIdentityService.account }
            scripts.listSessions = { _, _ in throw RPCError(code: .permissionDenied, message: "no") }
        }
        let own = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let error = try await withScriptedServer(service, store: InMemoryTokenStore(Self.signedIn)) { client in
            let failure = try await GatewayClient.withTraceParent(own) {
                _ = try await client.identity.getAccount()
                return await gatewayError { _ = try await client.identity.listSessions() }
            }
            try await GatewayClient.withTraceParent("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01") {
                _ = try await client.identity.getAccount()
            }
            return failure
        }
        let sent = service.calls.map(\.traceparent)
        try #require(sent.count == 3)
        #expect(sent[0] == own)
        #expect(sent[1] == own)
        #expect(error?.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        let replaced = try #require(sent.last.flatMap { $0 }.flatMap(TraceParent.init(header:)))
        #expect(replaced.traceID.hex != "4bf92f3577b34da6a3ce929d0e0e4736")
    }
}
