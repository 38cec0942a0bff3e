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
}
