import Contracts
import Foundation
import Logging
import RPC
@testable import Runtime
import Synchronization
import Testing

@Suite struct InterceptorTests {
    typealias Messages = GRPCTesting

    static func jsonLines(_ capture: LogCapture) -> [[String: Any]] {
        capture.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func logging_okCall_logsOnceWithoutBodyOrAuthorization() async throws {
        let harness = try RuntimeHarness()
        let client = harness.makeClient()
        var request = Messages.SimpleRequest()
        request.responseSize = 3
        request.payload = Messages.Payload(body: Array("SECRET-BODY".utf8))
        let metadata = Metadata(["authorization": "Bearer SECRET-TOKEN", "x-request-id": "req-123"])
        let response = try await client.unary(path: "/\(ProbeService.name)/Echo", request: request,
                                              as: Messages.SimpleResponse.self, options: CallOptions(metadata: metadata))
        #expect(response.initialMetadata[string: "x-request-id"] == "req-123")
        client.close()
        await harness.stop()

        let lines = Self.jsonLines(harness.logs)
        try #require(lines.count == 1)
        let fields = try #require(lines[0]["metadata"] as? [String: Any])
        #expect(fields["rpc.method"] as? String == "/\(ProbeService.name)/Echo")
        #expect(fields["rpc.code"] as? String == "OK")
        #expect(fields["request_id"] as? String == "req-123")
        #expect((fields["peer"] as? String)?.hasPrefix("127.0.0.1:") == true)
        #expect(fields["rpc.duration_ms"] is Double)
        #expect(lines[0]["level"] as? String == "info")
        let raw = harness.logs.lines.joined()
        #expect(!raw.contains("SECRET"))
    }

    @Test func logging_failedCall_logsCodeAndReason() async throws {
        let harness = try RuntimeHarness()
        let client = harness.makeClient()
        await #expect(throws: RPCError.self) {
            _ = try await client.unary(path: "/\(ProbeService.name)/Fail", request: Messages.SimpleRequest(),
                                       as: Messages.SimpleResponse.self)
        }
        client.close()
        await harness.stop()
        let fields = try #require(Self.jsonLines(harness.logs).first?["metadata"] as? [String: Any])
        #expect(fields["rpc.code"] as? String == "FAILED_PRECONDITION")
        #expect(fields["rpc.reason"] as? String == "PROBE_FAILED")
    }

    /// A logger whose handler is not the services' own gets the same fields through swift-log.
    @Test func logging_toAnotherHandler_givesTheSameFields() async throws {
        let events = EventRecorder()
        let harness = try RuntimeHarness(logger: Logger(label: "other") { _ in events })
        let client = harness.makeClient()
        _ = try await client.unary(path: "/\(ProbeService.name)/Echo", request: Messages.SimpleRequest(),
                                   as: Messages.SimpleResponse.self,
                                   options: CallOptions(metadata: Metadata(["x-request-id": "req-9"])))
        await #expect(throws: RPCError.self) {
            _ = try await client.unary(path: "/\(ProbeService.name)/Fail", request: Messages.SimpleRequest(),
                                       as: Messages.SimpleResponse.self)
        }
        client.close()
        await harness.stop()

        let recorded = events.events.withLock { $0 }
        try #require(recorded.count == 2)
        #expect(recorded.allSatisfy { $0.level == .info && $0.message == "rpc finished" })
        let ok = recorded[0].metadata
        #expect(Set(ok.keys) == ["peer", "request_id", "rpc.code", "rpc.duration_ms", "rpc.method"])
        #expect(ok["request_id"] == .string("req-9"))
        #expect(ok["rpc.code"] == .string("OK"))
        #expect(ok["rpc.method"] == .string("/\(ProbeService.name)/Echo"))
        guard case .stringConvertible(let duration) = ok["rpc.duration_ms"] else {
            Issue.record("rpc.duration_ms is \(String(describing: ok["rpc.duration_ms"]))")
            return
        }
        #expect(duration is Double)
        let failed = recorded[1].metadata
        #expect(failed["rpc.code"] == .string("FAILED_PRECONDITION"))
        #expect(failed["rpc.reason"] == .string("PROBE_FAILED"))
    }

    @Test func forCall_attachesMethodAndRequestID() async throws {
        let harness = try RuntimeHarness()
        let capture = LogCapture()
        let base = capture.logger(label: "handler")
        let client = harness.makeClient()
        _ = try await client.unary(path: "/\(ProbeService.name)/Echo", request: Messages.SimpleRequest(),
                                   as: Messages.SimpleResponse.self,
                                   options: CallOptions(metadata: Metadata(["x-request-id": "abc"])))
        client.close()
        await harness.stop()
        let context = try #require(harness.lastContext)
        base.forCall(context).info("inside")
        let fields = try #require(Self.jsonLines(capture).first?["metadata"] as? [String: Any])
        #expect(fields["request_id"] as? String == "abc")
        #expect(fields["rpc.method"] as? String == "/\(ProbeService.name)/Echo")
    }

    @Test(arguments: ["", "has space", String(repeating: "x", count: 129), "new\u{7F}line"])
    func requestID_unacceptable_isReplaced(given: String) {
        var metadata = Metadata()
        if !given.isEmpty { metadata.addString(given, forKey: "x-request-id") }
        let id = RequestID.resolve(metadata)
        #expect(id != given)
        #expect(id.count == 32)
        #expect(id.allSatisfy { $0.isHexDigit })
    }

    @Test func requestID_generated_isReturnedToClient() async throws {
        let harness = try RuntimeHarness()
        let client = harness.makeClient()
        let response = try await client.unary(path: "/\(ProbeService.name)/Echo", request: Messages.SimpleRequest(),
                                              as: Messages.SimpleResponse.self)
        client.close()
        await harness.stop()
        let id = try #require(response.initialMetadata[string: "x-request-id"])
        #expect(id.count == 32)
        let fields = try #require(Self.jsonLines(harness.logs).first?["metadata"] as? [String: Any])
        #expect(fields["request_id"] as? String == id)
    }

    @Test func metrics_callsCountedByMethodAndCode() async throws {
        let harness = try RuntimeHarness()
        let client = harness.makeClient()
        for _ in 0..<2 {
            _ = try await client.unary(path: "/\(ProbeService.name)/Echo", request: Messages.SimpleRequest(),
                                       as: Messages.SimpleResponse.self)
        }
        _ = try? await client.unary(path: "/\(ProbeService.name)/Fail", request: Messages.SimpleRequest(),
                                    as: Messages.SimpleResponse.self)
        client.close()
        await harness.stop()
        let text = String(decoding: harness.metrics.exposition(), as: UTF8.self)
        #expect(text.contains(#"rpc_server_requests_total{method="/rendezvous.test.v1.Probe/Echo",code="OK"} 2"#))
        #expect(text.contains(#"rpc_server_requests_total{method="/rendezvous.test.v1.Probe/Fail",code="FAILED_PRECONDITION"} 1"#))
        #expect(text.contains(#"rpc_server_duration_seconds_count{method="/rendezvous.test.v1.Probe/Echo"} 2"#))
        #expect(text.contains(#"rpc_server_duration_seconds_bucket{method="/rendezvous.test.v1.Probe/Echo",le="+Inf"} 2"#))
        #expect(text.contains("rpc_server_active_calls 0"))
    }

    @Test func gaugeHook_isSampledAtEveryScrape() {
        let metrics = RuntimeMetrics()
        let value = Counter()
        metrics.addGaugeHook("pool_connections_in_use", labels: [("pool", "main")], help: "Connections checked out") {
            Double(value.next())
        }
        let first = String(decoding: metrics.exposition(), as: UTF8.self)
        let second = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(first.contains(#"pool_connections_in_use{pool="main"} 1"#))
        #expect(second.contains(#"pool_connections_in_use{pool="main"} 2"#))
        #expect(second.contains("# HELP pool_connections_in_use Connections checked out"))
    }

    final class Counter: Sendable {
        private let value = Synchronization.Atomic<Int>(0)
        func next() -> Int { value.add(1, ordering: .relaxed).newValue }
    }
}

/// A swift-log handler of another kind: keeps each event's level, message and metadata.
private final class EventRecorder: LogHandler, @unchecked Sendable {
    // @unchecked Sendable: the one mutable store is behind a Mutex; `metadata` and `logLevel`
    // are set only before the harness starts.
    struct Event {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    let events = Mutex<[Event]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        events.withLock { $0.append(Event(level: event.level, message: event.message.description,
                                          metadata: event.metadata ?? [:])) }
    }
}
