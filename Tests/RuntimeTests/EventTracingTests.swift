import Contracts
import Foundation
import Logging
import Postgres
import RPC
@testable import Runtime
import Synchronization
import Testing
import TestSupport
import Tracing

/// Trace context through the outbox: an event appended in a sampled span stores a producer
/// span's context, and the exactly-once consumer applies it in a consumer span that is that
/// span's child, linked to it, with its log lines naming the trace; an event of an unsampled
/// trace or of no span stores none, and its handling starts no span. A failed handling is an
/// error span, and its retry another child of the producer.
@Suite struct EventTracingTests {
    @Test func consumedEvent_continuesTheProducersTrace_asALinkedChild_withItsLogLines() async throws {
        let producerPool = try await TestDatabase.makePool()
        let consumerPool = try await TestDatabase.makePool()
        defer {
            producerPool.close()
            consumerPool.close()
        }
        let outbox = try await EventsTests.makeOutbox(pool: producerPool)
        try await EventsTests.makeCursorTable(pool: consumerPool)
        let producer = try await EventsTests.Producer(outbox: outbox, pool: producerPool)
        let client = RPCClient(host: "127.0.0.1", port: producer.server.port, tracesCalls: false)
        defer { client.close() }
        let spans = SpanCollector()
        let tracer = RuntimeTracer(sampleRatio: 1, sink: spans)
        let unsampledTracer = RuntimeTracer(sampleRatio: 0, sink: spans)

        func append(_ type: String) async throws {
            _ = try await producerPool.withTransaction { connection in
                try await outbox.append(OutboxEvent(type: type, app: "elite", aggregateID: "a", payload: Array("secret text".utf8)),
                                        on: connection)
            }
        }
        let request = try await withTracer(tracer) {
            try await tracer.withSpan("request", ofKind: .server) { span in
                try await append("MatchCreated")
                return try #require(span.context.spanContext)
            }
        }
        try await withTracer(unsampledTracer) {
            try await unsampledTracer.withSpan("unsampled", ofKind: .server) { _ in try await append("Unsampled") }
        }
        try await withTracer(tracer) { try await append("Untraced") }
        let stored = try await producerPool.withConnection { connection in
            try await connection.query("SELECT type, traceparent FROM testsvc.\(outbox.stream) ORDER BY cursor")
                .map { (try $0.decode(0, as: String.self), try $0.decode(1, as: String?.self)) }
        }
        #expect(stored.map(\.0) == ["MatchCreated", "Unsampled", "Untraced"])
        #expect(stored.map { $0.1 == nil } == [false, true, true], "only the sampled trace's event stores a context")

        let logs = LogCapture()
        let logger = logs.logger(label: "consumer")
        let seen = Mutex<[String: SpanContext?]>([:])
        let failedOnce = Mutex(false)
        let consumer = try EventConsumer(source: TestDatabase.uniqueName("source"), schema: "testsvc", pool: consumerPool,
                                         client: client, credential: EventsTests.consumerCredential) { event, connection in
            let firstAttempt = event.type == "MatchCreated" && !failedOnce.withLock { failed in
                defer { failed = true }
                return failed
            }
            if firstAttempt {
                throw RPCError(code: .unavailable, message: "a transient failure")
            }
            seen.withLock { $0[event.type] = InstrumentationContext.current?.spanContext }
            logger.info("applying")
            _ = try await connection.query("SELECT 1")
        }
        let running = Task { await withTracer(tracer) { await consumer.run() } }
        let deadline = ContinuousClock.now + .seconds(10)
        while seen.withLock({ $0.count }) < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        running.cancel()
        await running.value
        await producer.stop()

        let trace = spans.spans(inTrace: request.traceID)
        let create = try #require(trace.first { $0.name == "create MatchCreated" })
        #expect(create.kind == .producer)
        let transaction = try #require(trace.first { $0.name == "postgresql transaction" && $0.parentSpanID == request.spanID })
        #expect(create.parentSpanID == transaction.context.spanID, "the producer span belongs to the appending transaction")
        let attempts = trace.filter { $0.name == "process MatchCreated" }
        try #require(attempts.count == 2, "the failed handling and its retry")
        let failed = try #require(attempts.first { $0.status?.code == .error })
        #expect(failed.attributes.get("error.type") == .string(String(reflecting: RPCError.self)))
        #expect(failed.parentSpanID == create.context.spanID)
        let process = try #require(attempts.first { $0.status == nil })
        #expect(process.kind == .consumer)
        #expect(process.parentSpanID == create.context.spanID, "a consumed event's span is its producer's child")
        #expect(process.links.map(\.context.spanID) == [create.context.spanID])
        #expect(process.links.map(\.context.traceID) == [request.traceID])
        for (key, value) in [("messaging.system", "rendezvous"), ("messaging.operation", "process"),
                             ("messaging.operation.type", "process"), ("messaging.destination.name", "MatchCreated")] {
            #expect(process.attributes.get(key) == .string(value), "\(key)")
        }
        #expect(create.attributes.get("messaging.operation") == .string("create"))
        let statement = try #require(trace.first { $0.name == "SELECT" })
        #expect(statement.parentSpanID == process.context.spanID, "the handler's statements are the consumer span's children")
        for span in trace {
            span.attributes.forEach { key, value in #expect(!"\(value)".contains("secret"), "\(span.name) \(key)") }
        }
        #expect(spans.spans.filter { $0.name.hasPrefix("process") }.count == 2, "no span for events of no sampled trace")
        #expect(seen.withLock { $0["Untraced"] } == .some(nil))
        #expect(seen.withLock { $0["MatchCreated"] }??.spanID == process.context.spanID)

        let line = try #require(logs.lines.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { ($0["metadata"] as? [String: Any])?["trace_id"] != nil })
        let fields = try #require(line["metadata"] as? [String: Any])
        #expect(fields["trace_id"] as? String == request.traceID.hex)
        #expect(fields["span_id"] as? String == process.context.spanID.hex)
    }
}
