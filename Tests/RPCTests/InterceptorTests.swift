import RPC
import Testing

/// Rejects calls without `authorization: Bearer good`; stores the account for handlers.
struct RequireAuthorization: ServerInterceptor {
    nonisolated(nonsending) func intercept(_ context: ServerCallContext, next: nonisolated(nonsending) () async throws -> Void) async throws {
        guard context.requestMetadata[string: "authorization"] == "Bearer good" else {
            throw RPCError(code: .unauthenticated, message: "missing or bad credentials", reason: "NO_CREDENTIALS")
        }
        context[value: "account"] = "alice"
        try await next()
    }
}

/// Records when the chain enters and leaves it.
struct RecordingInterceptor: ServerInterceptor {
    let name: String
    let probe: Probe

    nonisolated(nonsending) func intercept(_ context: ServerCallContext, next: nonisolated(nonsending) () async throws -> Void) async throws {
        probe.record("\(name) in")
        defer { probe.record("\(name) out") }
        try await next()
    }
}

@Suite struct InterceptorTests {
    static func authorized(_ token: String?) -> CallOptions {
        var metadata = Metadata()
        if let token { metadata.addString(token, forKey: "authorization") }
        return CallOptions(metadata: metadata)
    }

    @Test(arguments: [nil, "", "Bearer bad", "bearer good"])
    func missingOrBadAuthorization_isUnauthenticated_andHandlerDoesNotRun(token: String?) async throws {
        let probe = Probe()
        try await withServer(services: [EchoService(probe: probe)], interceptors: [RequireAuthorization()]) { _, client in
            let error = await rpcError {
                _ = try await client.unary(path: EchoService.path("Sleep"), request: TestMessage(number: 1),
                                           as: TestMessage.self, options: Self.authorized(token))
            }
            #expect(error?.code == .unauthenticated)
            #expect(error?.reason == "NO_CREDENTIALS")
            #expect(probe.recorded.isEmpty)
        }
    }

    @Test func goodAuthorization_reachesHandler_withInterceptorValues() async throws {
        try await withServer(interceptors: [RequireAuthorization()]) { _, client in
            let response = try await client.unary(path: EchoService.path("Whoami"), request: TestMessage(),
                                                  as: TestMessage.self, options: Self.authorized("Bearer good"))
            #expect(response.message.text == "alice")
        }
    }

    @Test func missingAuthorization_onStreamingCall_isUnauthenticated() async throws {
        try await withServer(interceptors: [RequireAuthorization()]) { _, client in
            let call = try await client.bidirectional(path: EchoService.path("Chat"),
                                                      as: TestMessage.self) as StreamingCall<TestMessage, TestMessage>
            try await call.send(TestMessage(text: "hi"))
            call.finishSending()
            let error = await rpcError { for try await _ in call {} }
            #expect(error?.code == .unauthenticated)
        }
    }

    @Test func twoInterceptors_runInRegistrationOrder_aroundTheHandler() async throws {
        let probe = Probe()
        let interceptors: [any ServerInterceptor] = [
            RecordingInterceptor(name: "first", probe: probe), RecordingInterceptor(name: "second", probe: probe),
        ]
        try await withServer(services: [EchoService(probe: probe)], interceptors: interceptors) { _, client in
            _ = try await client.unary(path: EchoService.path("Sleep"), request: TestMessage(number: 1), as: TestMessage.self)
            #expect(await probe.wait(for: "first out"))
            #expect(probe.recorded == ["first in", "second in", "started", "finished", "second out", "first out"])
        }
    }

    @Test func rejectingInterceptor_first_stopsTheChainBeforeTheSecond() async throws {
        let probe = Probe()
        let interceptors: [any ServerInterceptor] = [RequireAuthorization(), RecordingInterceptor(name: "second", probe: probe)]
        try await withServer(interceptors: interceptors) { _, client in
            let error = await rpcError {
                _ = try await client.unary(path: EchoService.path("Echo"), request: TestMessage(), as: TestMessage.self)
            }
            #expect(error?.code == .unauthenticated)
            #expect(probe.recorded.isEmpty)
        }
    }
}
