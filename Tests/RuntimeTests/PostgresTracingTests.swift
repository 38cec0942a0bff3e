import Postgres
import RPC
@testable import Runtime
import Testing
import TestSupport
import Tracing

/// Postgres work in spans: a transaction's span is the parent of its statements', each named
/// by its statement's summary, none holding a bound value.
@Suite struct PostgresTracingTests {
    @Test func transactionAndStatements_areSpansOfTheCurrentTrace_withoutValues() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let table = TestDatabase.uniqueName("traced")
        try await pool.withConnection { try await $0.executeScript("CREATE TABLE \(table) (id int4, note text)") }
        let collector = SpanCollector()
        let tracer = RuntimeTracer(sampleRatio: 1, sink: collector)

        let rootContext = try await withTracer(tracer) {
            try await tracer.withSpan("root") { root in
                try await pool.withTransaction { tx in
                    try await tx.execute("INSERT INTO \(table) (id, note) VALUES ($1, $2)", [.int32(7), .text("secret-note")])
                }
                _ = try await pool.withConnection { connection in
                    try await connection.query("SELECT note FROM \(table) WHERE note = $1", [.text("secret-note")])
                }
                await #expect(throws: PostgresError.self) {
                    try await pool.withConnection { try await $0.execute("INSERT INTO \(table) (id) VALUES ($1)", [.text("secret-x")]) }
                }
                return root.context.spanContext
            }
        }
        // Outside any span (a background poll): no trace of its own.
        try await withTracer(tracer) {
            try await pool.withConnection { try await $0.executeScript("DROP TABLE \(table)") }
        }
        #expect(!collector.spans.contains { $0.name.hasPrefix("DROP") })
        let root = try #require(rootContext)
        let spans = collector.spans(inTrace: root.traceID)

        let transaction = try #require(spans.first { $0.name == "postgresql transaction" })
        #expect(transaction.parentSpanID == root.spanID)
        #expect(transaction.kind == .client)
        #expect(transaction.attributes.get("db.system") == .string("postgresql"))
        #expect(transaction.attributes.get("db.namespace") == .string(pool.configuration.database))

        let insert = try #require(spans.first { $0.name == "BEGIN; INSERT \(table)" })
        #expect(insert.parentSpanID == transaction.context.spanID)
        #expect(insert.attributes.get("db.query.summary") == .string("BEGIN; INSERT \(table)"))
        let commit = try #require(spans.first { $0.name == "COMMIT" })
        #expect(commit.parentSpanID == transaction.context.spanID)

        let select = try #require(spans.first { $0.name == "SELECT \(table)" })
        #expect(select.parentSpanID == root.spanID)
        #expect(select.attributes.get("server.port") == .int64(Int64(pool.configuration.port)))

        let failed = try #require(spans.first { $0.name == "INSERT \(table)" })
        #expect(failed.status?.code == .error)
        #expect(failed.attributes.get("db.response.status_code") == .string("42804"))

        for span in spans {
            var text = span.name
            span.attributes.forEach { key, value in text += " \(key)=\(value)" }
            #expect(!text.contains("secret"), "\(text)")
        }
    }

    /// A read sent in a batch with others (`BatchedReads`) has its span in its own caller's
    /// trace, named by its statement's summary; a failed one carries its SQLSTATE.
    @Test func batchedReads_areSpansOfTheirCallersTraces() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let reads = BatchedReads(pool: pool)
        let collector = SpanCollector()
        let tracer = RuntimeTracer(sampleRatio: 1, sink: collector)
        let roots = try await concurrentRoots(8, tracer: tracer) { n in
            _ = try? await reads.query(PostgresStatement("SELECT 10 / $1::int4 FROM pg_class LIMIT 1", [.int32(n)]))
        }
        #expect(roots.count == 8)
        var failed = 0
        for case let root? in roots {
            let spans = collector.spans(inTrace: root.traceID)
            // Its own read only: the batch's round trips, and the lone retries after the
            // failed batch, belong to no caller's trace.
            let reads = spans.filter { $0.name == "SELECT pg_class" }
            #expect(reads.count == 1, "\(spans.map(\.name))")
            let read = try #require(reads.last, "no read span in \(spans.map(\.name))")
            #expect(read.parentSpanID == root.spanID)
            #expect(read.kind == .client)
            #expect(read.attributes.get("db.system") == .string("postgresql"))
            if read.status?.code == .error {
                failed += 1
                #expect(read.attributes.get("db.response.status_code") == .string("22012"))
            }
        }
        #expect(failed == 1, "only the read dividing by zero failed")
    }

    /// A write stored in a group commit's batch (`GroupCommitQueue`) shows in its caller's trace
    /// as a transaction span of its own; the batch's statements, run by the queue's runner, join
    /// no caller's trace.
    @Test func groupCommittedWrites_areTransactionSpansOfTheirCallersTraces() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let table = TestDatabase.uniqueName("grouped")
        try await pool.withConnection { try await $0.executeScript("CREATE TABLE \(table) (id int4)") }
        let queue = GroupCommitQueue<Int32, Int32>(maxBatch: 8, maxRunning: 1) { ids in
            try await pool.withTransaction { tx in
                for id in ids { try await tx.execute("INSERT INTO \(table) (id) VALUES ($1)", [.int32(id)]) }
                return ids
            }
        }
        let collector = SpanCollector()
        let tracer = RuntimeTracer(sampleRatio: 1, sink: collector)
        let roots = try await concurrentRoots(12, tracer: tracer) { n in
            let stored = try await pool.withTransactionSpan { try await queue.submit(n) }
            #expect(stored == n)
        }
        #expect(roots.count == 12)
        for case let root? in roots {
            let spans = collector.spans(inTrace: root.traceID)
            let transactions = spans.filter { $0.name == "postgresql transaction" }
            #expect(spans.count == 2 && transactions.count == 1, "\(spans.map(\.name))")
            let transaction = try #require(transactions.first)
            #expect(transaction.parentSpanID == root.spanID)
            #expect(transaction.attributes.get("db.system") == .string("postgresql"))
        }
        let stored = try await pool.withConnection { try await $0.query("SELECT count(*) FROM \(table)")[0].decode(0, as: Int64.self) }
        #expect(stored == 12)
    }

    /// A span its tracer does not record (a trace sampled out, or nothing collecting spans) says
    /// so in its context, and the statements run under it start no span; a recorded one's do.
    @Test(arguments: [(ratio: 0.0, collected: true, recorded: false), (1.0, false, false), (1.0, true, true)])
    func unrecordedSpans_makeNoStatementSpans(ratio: Double, collected: Bool, recorded: Bool) async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let collector = SpanCollector()
        let tracer = RuntimeTracer(sampleRatio: ratio, sink: collected ? collector : nil)
        let root = try await withTracer(tracer) {
            try await tracer.withSpan("root") { root in
                try await tracer.withSpan("child") { _ in
                    #expect(InstrumentationContext.current?.recordsSpans == recorded)
                    _ = try await pool.withConnection { try await $0.query("SELECT relname FROM pg_class LIMIT 1") }
                }
                return root.context.spanContext
            }
        }
        let spans = collector.spans(inTrace: try #require(root).traceID)
        #expect(spans.map(\.name).sorted() == (recorded ? ["SELECT pg_class", "child", "root"] : []))
    }

    /// Runs `body` for 0..<count concurrently, each under a traced root span of its own, and
    /// answers the roots' contexts.
    private func concurrentRoots(
        _ count: Int32, tracer: RuntimeTracer, _ body: @escaping @Sendable (Int32) async throws -> Void
    ) async throws -> [SpanContext?] {
        try await withTracer(tracer) {
            try await withThrowingTaskGroup(of: SpanContext?.self) { group in
                for n in Int32(0)..<count {
                    group.addTask {
                        try await tracer.withSpan("root \(n)") { root in
                            try await body(n)
                            return root.context.spanContext
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
    }
}
