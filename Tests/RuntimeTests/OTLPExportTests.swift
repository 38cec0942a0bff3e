import Foundation
import Logging
import RPC
@testable import Runtime
import Testing
import TestSupport
import Tracing

/// Spans exported over OTLP/gRPC to a stand-in collector (grpcio with opentelemetry-proto's
/// TraceService, `Fixtures/otlp_receiver.py`), decoded there by the reference classes.
@Suite(OTLPReceiver()) struct OTLPExportTests {
    static let incoming = TracingTests.incoming

    static func exporter(port: Int = OTLPReceiver.port, metrics: RuntimeMetrics = RuntimeMetrics(),
                         options: OTLPExporter.Options = OTLPExporter.Options()) -> OTLPExporter {
        OTLPExporter(host: "127.0.0.1", port: port, serviceName: "relay", metrics: metrics,
                     logger: Logger(label: "otlp") { _ in SwiftLogNoOpLogHandler() }, options: options)
    }

    /// The value of `rv_trace_spans_dropped_total{reason=…}` in the exposition.
    static func dropped(_ metrics: RuntimeMetrics, reason: String) -> Int? {
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        let prefix = "rv_trace_spans_dropped_total{reason=\"\(reason)\"} "
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
    }

    static func span(_ name: String, traceID: TraceID = incoming.traceID) -> FinishedSpan {
        FinishedSpan(name: name, kind: .internal,
                     context: SpanContext(traceID: traceID, spanID: SpanIDGenerator.nextSpanID(), isSampled: true),
                     parentSpanID: nil, startNanoseconds: 1_000, endNanoseconds: 2_000, attributes: [:], status: nil,
                     events: [], links: [])
    }

    @Test func hop_reachesTheCollector_asOneTreeWithItsAttributes() async throws {
        let exporter = Self.exporter()
        let running = Task { await exporter.run() }
        let hops = try TracingTests.TwoHops(sink: exporter)
        try await hops.call(metadata: Metadata(["traceparent": Self.incoming.header]))
        let spans = try await OTLPReceiver.spans(inTrace: Self.incoming.traceID.hex, count: 3)
        await hops.stop()
        running.cancel()
        await running.value
        exporter.close()

        try #require(spans.count == 3, "\(spans)")
        let byName = Dictionary(grouping: spans) { $0["name"] as? String ?? "" }
        let serverA = try #require(byName["\(TracingTests.relay)/Call"]?.first)
        let serverB = try #require(spans.first { $0["name"] as? String == "\(ProbeService.name)/Echo" && $0["kind"] as? Int == 2 })
        let clientA = try #require(spans.first { $0["kind"] as? Int == 3 })
        #expect(serverA["parent_span_id"] as? String == Self.incoming.spanID.hex)
        #expect(clientA["parent_span_id"] as? String == serverA["span_id"] as? String)
        #expect(serverB["parent_span_id"] as? String == clientA["span_id"] as? String)
        let attributes = try #require(clientA["attributes"] as? [String: Any])
        #expect(attributes["rpc.system"] as? String == "grpc")
        #expect(attributes["rpc.method"] as? String == "Echo")
        #expect(attributes["rpc.grpc.status_code"] as? Int == 0)
        #expect(attributes["server.port"] as? Int == hops.portB)
        let resource = try #require(serverA["resource"] as? [String: Any])
        #expect(resource["service.name"] as? String == "relay")
        #expect(serverA["scope"] as? String == "rendezvous")
        #expect((serverA["end"] as? Int ?? 0) >= (serverA["start"] as? Int ?? .max))
        #expect(serverA["flags"] as? Int == 1)
    }

    @Test func fullQueue_dropsAndCountsSpans_withoutWaiting() async throws {
        let metrics = RuntimeMetrics()
        var options = OTLPExporter.Options()
        options.maxQueueSize = 4
        let exporter = Self.exporter(metrics: metrics, options: options)
        let traceID = SpanIDGenerator.nextTraceID()
        let clock = ContinuousClock()
        let started = clock.now
        for index in 0..<10 { exporter.record(Self.span("s\(index)", traceID: traceID)) }
        #expect(clock.now - started < .milliseconds(100))
        #expect(Self.dropped(metrics, reason: "queue_full") == 6)
        await exporter.flush()
        exporter.close()
        let received = try await OTLPReceiver.spans(inTrace: traceID.hex, count: 4)
        #expect(received.compactMap { $0["name"] as? String }.sorted() == ["s0", "s1", "s2", "s3"])
    }

    @Test func unreachableCollector_dropsTheBatch_andCountsIt() async throws {
        let metrics = RuntimeMetrics()
        let exporter = Self.exporter(port: try LocalPort.free(), metrics: metrics)
        for index in 0..<3 { exporter.record(Self.span("lost\(index)")) }
        await exporter.flush()
        exporter.close()
        #expect(Self.dropped(metrics, reason: "export_failed") == 3)
        #expect(Self.dropped(metrics, reason: "queue_full") == 0)
    }

    @Test func stoppingTheExporter_sendsWhatIsQueued() async throws {
        var options = OTLPExporter.Options()
        options.interval = .seconds(60)
        let exporter = Self.exporter(options: options)
        let running = Task { await exporter.run() }
        let traceID = SpanIDGenerator.nextTraceID()
        exporter.record(Self.span("last", traceID: traceID))
        try await Task.sleep(for: .milliseconds(50))
        running.cancel()
        await running.value
        exporter.close()
        let received = try await OTLPReceiver.spans(inTrace: traceID.hex, count: 1)
        #expect(received.compactMap { $0["name"] as? String } == ["last"])
    }

    @Test func fullBatch_isSentBeforeTheInterval() async throws {
        var options = OTLPExporter.Options()
        options.maxBatchSize = 2
        options.interval = .seconds(60)
        let exporter = Self.exporter(options: options)
        let running = Task { await exporter.run() }
        let traceID = SpanIDGenerator.nextTraceID()
        exporter.record(Self.span("a", traceID: traceID))
        exporter.record(Self.span("b", traceID: traceID))
        let received = try await OTLPReceiver.spans(inTrace: traceID.hex, count: 2)
        running.cancel()
        await running.value
        exporter.close()
        #expect(received.count == 2)
    }
}

/// Runs `OTLPCollector` (`Fixtures/otlp_receiver.py`) for the suite.
struct OTLPReceiver: SuiteTrait, TestScoping {
    @TaskLocal static var collector: OTLPCollector?

    static var port: Int { collector?.port ?? 0 }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let collector = try await OTLPCollector.start()
        defer { collector.stop() }
        try await Self.$collector.withValue(collector) { try await function() }
    }

    /// The received spans of one trace, once `count` arrived (or after 10 s).
    static func spans(inTrace traceID: String, count: Int) async throws -> [[String: Any]] {
        guard let collector else { return [] }
        return try await collector.spans(inTrace: traceID, count: count)
    }
}
