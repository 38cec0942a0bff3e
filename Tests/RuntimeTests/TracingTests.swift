import Contracts
import Foundation
import Logging
import RPC
@testable import Runtime
import Synchronization
import Testing
import Tracing

/// One trace across a hop: a client → service A (server span) → A's call to service B (client
/// span) → B (server span), over live sockets, each server with its own tracer.
@Suite struct TracingTests {
    typealias Messages = GRPCTesting
    static let relay = "rendezvous.test.v1.Relay"

    /// A: `Call` logs a line and calls B's Echo (or Fail, when the request's fill_username is set).
    struct RelayService: RPCService {
        let downstream: RPCClient
        let logger: Logger
        var serviceName: String { TracingTests.relay }

        func register(in router: inout RPCRouter) {
            router.unary(serviceName, "Call") { (request: Messages.SimpleRequest, context) in
                logger.forCall(context).info("relaying")
                let method = request.fillUsername ? "Fail" : "Echo"
                return try await downstream.unary(path: "/\(ProbeService.name)/\(method)", request: request,
                                                  as: Messages.SimpleResponse.self).message
            }
        }
    }

    /// Two live servers, A in front of B, tracing into `spans`.
    final class TwoHops: Sendable {
        let spans = SpanCollector()
        let logs = LogCapture()
        let serverA: RPCServer
        let serverB: RPCServer
        let toB: RPCClient
        let client: RPCClient
        let portB: Int

        /// Spans go to `sink` when given, else to `spans`.
        init(sampleRatio: Double = 1, sink: (any SpanSink)? = nil) throws {
            var configuration = RPCServerConfiguration()
            configuration.loopCount = 1
            let tracerA = RuntimeTracer(sampleRatio: sampleRatio, sink: sink ?? spans)
            let tracerB = RuntimeTracer(sampleRatio: sampleRatio, sink: sink ?? spans)
            serverB = try RPCServer(configuration: configuration, services: [ProbeService()], tracer: tracerB)
            portB = try serverB.start()
            toB = RPCClient(host: "127.0.0.1", port: portB)
            let logger = logs.logger(label: "a")
            serverA = try RPCServer(configuration: configuration, services: [RelayService(downstream: toB, logger: logger)],
                                    interceptors: [LoggingInterceptor(logger: logger)], tracer: tracerA)
            client = RPCClient(host: "127.0.0.1", port: try serverA.start())
        }

        func call(metadata: Metadata = Metadata(), fail: Bool = false) async throws {
            var request = Messages.SimpleRequest()
            request.responseSize = 2
            request.fillUsername = fail
            _ = try await client.unary(path: "/\(TracingTests.relay)/Call", request: request,
                                       as: Messages.SimpleResponse.self, options: CallOptions(metadata: metadata))
        }

        func stop() async {
            client.close()
            toB.close()
            await serverA.shutdown(gracePeriod: .zero)
            await serverB.shutdown(gracePeriod: .zero)
        }

        var logLines: [[String: Any]] {
            logs.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
    }

    static let incoming = try! #require(TraceParent(header: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))

    @Test func hop_continuesTheCallersTrace_withParentsInOrder() async throws {
        let hops = try TwoHops()
        try await hops.call(metadata: Metadata(["traceparent": Self.incoming.header, "tracestate": "rojo=00f067aa0ba902b7"]))
        let spans = try await hops.spans.waitForSpans(inTrace: Self.incoming.traceID, count: 3)
        await hops.stop()

        try #require(spans.count == 3)
        let serverA = try #require(spans.first { $0.kind == .server && $0.name == "\(Self.relay)/Call" })
        let clientA = try #require(spans.first { $0.kind == .client })
        let serverB = try #require(spans.first { $0.kind == .server && $0.name == "\(ProbeService.name)/Echo" })
        #expect(serverA.parentSpanID == Self.incoming.spanID)
        #expect(clientA.parentSpanID == serverA.context.spanID)
        #expect(serverB.parentSpanID == clientA.context.spanID)
        #expect(Set([serverA, clientA, serverB].map(\.context.spanID)).count == 3)
        #expect(serverB.context.traceState?.header == "rojo=00f067aa0ba902b7")

        #expect(clientA.attributes.get("rpc.system") == .string("grpc"))
        #expect(clientA.attributes.get("rpc.service") == .string(ProbeService.name))
        #expect(clientA.attributes.get("rpc.method") == .string("Echo"))
        #expect(clientA.attributes.get("server.address") == .string("127.0.0.1"))
        #expect(clientA.attributes.get("server.port") == .int64(Int64(hops.portB)))
        #expect(clientA.attributes.get("rpc.grpc.status_code") == .int64(0))
        #expect(serverB.attributes.get("rpc.grpc.status_code") == .int64(0))
        #expect(serverA.status == nil)
        #expect(clientA.startNanoseconds >= serverA.startNanoseconds && clientA.endNanoseconds <= serverA.endNanoseconds)

        // Every line A logged inside the call names the trace and A's server span.
        let lines = hops.logLines
        try #require(lines.count == 2)
        for line in lines {
            let fields = try #require(line["metadata"] as? [String: Any])
            #expect(fields["trace_id"] as? String == Self.incoming.traceID.hex)
            #expect(fields["span_id"] as? String == serverA.context.spanID.hex)
        }
    }

    @Test(arguments: [
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "garbage",
    ])
    func invalidTraceparent_startsANewTrace(_ header: String) async throws {
        let hops = try TwoHops()
        try await hops.call(metadata: Metadata(["traceparent": header, "tracestate": "rojo=1"]))
        var root: FinishedSpan?
        for _ in 0..<200 where root == nil {
            root = hops.spans.spans.first { $0.kind == .server && $0.name == "\(Self.relay)/Call" }
            try await Task.sleep(for: .milliseconds(10))
        }
        let spans = try await hops.spans.waitForSpans(inTrace: try #require(root).context.traceID, count: 3)
        await hops.stop()
        let serverA = try #require(root)
        #expect(serverA.parentSpanID == nil)
        #expect(serverA.context.traceID.hex != "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(serverA.context.traceState == nil)
        #expect(spans.count == 3)
    }

    @Test func failedDownstreamCall_marksClientSpanAsError() async throws {
        let hops = try TwoHops()
        await #expect(throws: RPCError.self) {
            try await hops.call(metadata: Metadata(["traceparent": Self.incoming.header]), fail: true)
        }
        let spans = try await hops.spans.waitForSpans(inTrace: Self.incoming.traceID, count: 3)
        await hops.stop()
        let clientA = try #require(spans.first { $0.kind == .client })
        let serverB = try #require(spans.first { $0.name == "\(ProbeService.name)/Fail" })
        #expect(clientA.attributes.get("rpc.grpc.status_code") == .int64(Int64(StatusCode.failedPrecondition.rawValue)))
        #expect(clientA.status?.code == .error)
        // FAILED_PRECONDITION is the caller's problem, not the server's.
        #expect(serverB.status == nil)
        #expect(serverB.attributes.get("rpc.grpc.status_code") == .int64(Int64(StatusCode.failedPrecondition.rawValue)))
    }

    @Test func unsampledRemoteParent_atRatioZero_propagatesButRecordsNothing() async throws {
        let hops = try TwoHops(sampleRatio: 0)
        let unsampled = TraceParent(traceID: Self.incoming.traceID, spanID: Self.incoming.spanID, sampled: false)
        try await hops.call(metadata: Metadata(["traceparent": unsampled.header]))
        try await Task.sleep(for: .milliseconds(50))
        await hops.stop()
        #expect(hops.spans.spans(inTrace: Self.incoming.traceID).isEmpty)
        // The log lines still name the trace.
        let fields = try #require(hops.logLines.first?["metadata"] as? [String: Any])
        #expect(fields["trace_id"] as? String == Self.incoming.traceID.hex)
    }

    @Test func sampledRemoteParent_isRecordedWhatever_theRatio() async throws {
        let hops = try TwoHops(sampleRatio: 0)
        try await hops.call(metadata: Metadata(["traceparent": Self.incoming.header]))
        let spans = try await hops.spans.waitForSpans(inTrace: Self.incoming.traceID, count: 3)
        await hops.stop()
        #expect(spans.count == 3)
    }

    @Test func unsampledRemoteParent_isDecidedFromItsTraceID_alikeInEveryService() {
        let first = RuntimeTracer(sampleRatio: 0.5, sink: SpanCollector())
        let second = RuntimeTracer(sampleRatio: 0.5, sink: SpanCollector())
        var decisions: Set<Bool> = []
        for step in UInt64(0)..<64 {
            let low = step << 58 | 1
            var context = InstrumentationContext.topLevel
            context.spanContext = SpanContext(traceID: TraceID(high: 1, low: low), spanID: SpanID(1), isSampled: false,
                                              isRemote: true)
            let decision = first.startSpan("x", context: context).isRecording
            #expect(second.startSpan("y", context: context).isRecording == decision)
            decisions.insert(decision)
        }
        #expect(decisions == [true, false])
    }

    @Test func sampler_ratioZeroRecordsNoNewTrace_ratioOneRecordsEvery() {
        let never = RuntimeTracer(sampleRatio: 0, sink: SpanCollector())
        let always = RuntimeTracer(sampleRatio: 1, sink: SpanCollector())
        for _ in 0..<100 {
            #expect(!never.startSpan("x", context: .topLevel).isRecording)
            #expect(always.startSpan("x", context: .topLevel).isRecording)
        }
    }

    @Test func sampler_tenPercent_samplesAboutATenth() {
        let tracer = RuntimeTracer(sampleRatio: 0.1, sink: SpanCollector())
        let sampled = (0..<20_000).filter { _ in tracer.startSpan("x", context: .topLevel).isRecording }.count
        #expect((1_500...2_500).contains(sampled))
    }
}
