import Contracts
import GatewayClient
import GatewayClientHTTP2
import RPC
import Synchronization
import Testing

/// `client.realtime.events(after:)` against a scripted Realtime server whose streams break:
/// each new stream resumes after the last cursor received, a repeated cursor is not delivered
/// twice, and what a retry cannot fix ends the iteration.
@Suite struct RealtimeResumeTests {
    /// One stream the server opens: events to send, then how it ends (nil: stays open until
    /// cancelled).
    struct Plan: Sendable {
        var events: [Realtime.RealtimeEvent]
        var end: RPCError?
    }

    /// Serves the plans in order, recording each call's after_cursor and bearer token.
    final class ScriptedRealtime: RPCService, Sendable {
        let serviceName = RealtimeClient.serviceName
        let plans: [Plan]
        let calls = Mutex<[(cursor: Int64, bearer: String?)]>([])
        /// The last cursor the test's loop took: a stream ends only once its events were taken
        /// (the client drops messages still buffered when an error status arrives).
        let taken = Mutex<Int64>(0)
        /// Streams whose handler has returned or thrown.
        let ended = Mutex(0)

        init(_ plans: [Plan]) { self.plans = plans }

        func register(in router: inout RPCRouter) {
            router.serverStreaming(serviceName, "Subscribe") { [self] (request: Realtime.SubscribeRequest,
                                                                      writer: ResponseWriter<Realtime.RealtimeEvent>, context) in
                defer { ended.withLock { $0 += 1 } }
                let bearer = context.requestMetadata[string: "authorization"].map { String($0.dropFirst("Bearer ".count)) }
                let index = calls.withLock { calls in
                    calls.append((request.afterCursor, bearer))
                    return calls.count - 1
                }
                guard index < plans.count else { throw RPCError(code: .unavailable, message: "no more plans") }
                for event in plans[index].events { try await writer.write(event) }
                if let end = plans[index].end {
                    let last = plans[index].events.last?.cursor ?? 0
                    for _ in 0..<500 where taken.withLock({ $0 }) < last { try? await Task.sleep(for: .milliseconds(5)) }
                    throw end
                }
                for _ in 0..<500 where !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
            }
        }
    }

    static func ready(_ cursor: Int64) -> Realtime.RealtimeEvent {
        var event = Realtime.RealtimeEvent()
        event.event = .ready(.init(cursor: cursor))
        return event
    }

    static func message(_ cursor: Int64) -> Realtime.RealtimeEvent {
        var message = Messaging.Message()
        message.body = .text("m\(cursor)")
        var event = Realtime.RealtimeEvent()
        event.cursor = cursor
        event.event = .message(.init(message: message))
        return event
    }

    /// What an app sees of an event: "ready 10", "11".
    static func seen(_ event: Realtime.RealtimeEvent) -> String {
        if case .ready(let ready)? = event.event { return "ready \(ready.cursor)" }
        return "\(event.cursor)"
    }

    @Test func brokenStreams_resumeAfterTheLastCursor_withoutRepeats() async throws {
        let tooSlow = RPCError(Messaging.ErrorReason.subscriberTooSlow, message: "too slow")
        let server = ScriptedRealtime([
            Plan(events: [Self.ready(10), Self.message(11), Self.message(12)], end: RPCError(code: .unavailable, message: "drop")),
            Plan(events: [Self.ready(12), Self.message(12), Self.message(13)], end: tooSlow),
            Plan(events: [Self.ready(13), Self.message(14)], end: nil),
        ])
        let seen = try await withScriptedServer(server, store: InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1",
                                                                                                                  refresh: "r1"))) { client in
            var seen: [String] = []
            for try await event in client.realtime.events(after: 5) {
                seen.append(Self.seen(event))
                server.taken.withLock { $0 = max($0, event.cursor) }
                if event.cursor == 14 { break }
            }
            // Leaving the loop closes the open stream: the server's handler sees it cancelled.
            let deadline = ContinuousClock.now + .seconds(4)
            while server.ended.withLock({ $0 }) < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(server.ended.withLock { $0 } == 3)
            return seen
        }
        #expect(seen == ["ready 10", "11", "12", "ready 12", "13", "ready 13", "14"])
        let calls = server.calls.withLock { $0 }
        #expect(calls.map(\.cursor) == [5, 12, 13])
        #expect(calls.allSatisfy { $0.bearer == "a1" })
    }

    @Test func whatARetryCannotFix_endsTheIteration() async throws {
        let server = ScriptedRealtime([
            Plan(events: [], end: RPCError(Messaging.ErrorReason.invalidCursor, message: "negative")),
        ])
        let error = try await withScriptedServer(server, store: InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1",
                                                                                                                   refresh: "r1"))) { client in
            do {
                for try await _ in client.realtime.events() {}
                return nil as GatewayError?
            } catch {
                return error as? GatewayError
            }
        }
        #expect(error?.messagingReason == .invalidCursor)
        #expect(server.calls.withLock { $0.count } == 1)
    }

    /// A stream ended because its token expired is opened again with a refreshed one, from
    /// where it stopped.
    @Test func anExpiredToken_isRefreshed_andTheStreamResumes() async throws {
        let realtime = ScriptedRealtime([
            Plan(events: [Self.ready(10), Self.message(11)],
                 end: RPCError(Platform.ErrorReason.tokenExpired, message: "expired")),
            Plan(events: [Self.ready(11), Self.message(12)], end: nil),
        ])
        let identity = ScriptedIdentityService()
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let server = try RPCServer(configuration: configuration, services: [realtime, identity])
        let port = try server.start()
        let client = try GatewayClient(configuration: GatewayConfiguration(host: "127.0.0.1", port: port, security: .plaintext,
                                                                           app: "swivo", retryPolicy: .fast),
                                       tokenStore: InMemoryTokenStore(ScriptedIdentityService.stored(access: "a1", refresh: "r1")))
        var seen: [String] = []
        do {
            for try await event in client.realtime.events() {
                seen.append(Self.seen(event))
                realtime.taken.withLock { $0 = max($0, event.cursor) }
                if event.cursor == 12 { break }
            }
        } catch {
            Issue.record("the stream failed: \(error)")
        }
        client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
        #expect(seen == ["ready 10", "11", "ready 11", "12"])
        let calls = realtime.calls.withLock { $0 }
        #expect(calls.map(\.cursor) == [0, 11])
        #expect(calls.map(\.bearer) == ["a1", "a2"])
        #expect(identity.count("RefreshSession") == 1)
    }
}
