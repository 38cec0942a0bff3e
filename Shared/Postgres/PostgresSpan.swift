package import Tracing

/// Spans of Postgres work, by the OpenTelemetry database conventions: `db.system` postgresql,
/// the statement's summary as name and `db.query.summary`, `db.namespace`, and the server's
/// address. Never the SQL's values or bound parameters.
///
/// Only work inside a span (a call being served, a job's own span) is traced: a background
/// poll on its own would make a trace of one statement every few milliseconds. Nor is work
/// inside a span its tracer says is not recorded (`recordsSpans`): finding the process's tracer
/// and starting a span cost about 9,000 instructions a statement, for a span nobody sees.
enum PostgresSpan {
    /// Runs `body` (one round trip) in a client span named by `summary`, computed only when
    /// the span is recorded.
    nonisolated(nonsending) static func withRoundTrip<T>(
        _ configuration: PostgresConfiguration, summary: () -> String, _ body: nonisolated(nonsending) () async throws -> T
    ) async throws -> T {
        guard let context = InstrumentationContext.current, context.recordsSpans else { return try await body() }
        let span = InstrumentationSystem.tracer.startSpan("postgresql", ofKind: .client)
        if span.isRecording {
            let text = summary()
            span.operationName = text
            describe(span, configuration)
            span.attributes["db.query.summary"] = text
        }
        defer { span.end() }
        do {
            return try await body()
        } catch {
            fail(span, error)
            throw error
        }
    }

    /// Runs `body` (a whole transaction, its retries included) in a span that is the parent of
    /// its statements' spans.
    nonisolated(nonsending) static func withTransaction<T>(
        _ configuration: PostgresConfiguration, _ body: () async throws -> T
    ) async throws -> T {
        guard let context = InstrumentationContext.current, context.recordsSpans else { return try await body() }
        let span = InstrumentationSystem.tracer.startSpan("postgresql transaction", ofKind: .client)
        if span.isRecording { describe(span, configuration) }
        defer { span.end() }
        do {
            return try await InstrumentationContext.$current.withValue(span.context) { try await body() }
        } catch {
            fail(span, error)
            throw error
        }
    }

    private static func describe(_ span: any Tracing.Span, _ configuration: PostgresConfiguration) {
        span.updateAttributes { attributes in
            attributes["db.system"] = "postgresql"
            attributes["db.namespace"] = configuration.database
            attributes["server.address"] = configuration.host
            attributes["server.port"] = configuration.port
        }
    }

    /// The SQLSTATE only: a Postgres message may quote the row's values.
    private static func fail(_ span: any Tracing.Span, _ error: any Error) {
        guard span.isRecording else { return }
        if let postgres = error as? PostgresError {
            span.attributes["error.type"] = postgres.code.description
            if let state = postgres.sqlState { span.attributes["db.response.status_code"] = state.rawValue }
        } else {
            span.attributes["error.type"] = String(reflecting: type(of: error))
        }
        span.setStatus(SpanStatus(code: .error))
    }
}

extension InstrumentationContext {
    /// Whether spans started in this context are recorded; true when its tracer did not say (a
    /// tracer other than the services' own). The services' tracer (`RuntimeTracer`) says false
    /// for a trace it sampled out, and for every trace when nothing collects spans.
    package var recordsSpans: Bool {
        get { self[RecordsSpansKey.self] ?? true }
        set { self[RecordsSpansKey.self] = newValue }
    }
}

private enum RecordsSpansKey: InstrumentationContextKey {
    typealias Value = Bool
    static var nameOverride: String? { "records-spans" }
}

extension PostgresPool {
    /// Runs `body`, which waits for `statement` to come back from a round trip another task
    /// sends (a batch of reads), in the span the statement's own round trip would have had: the
    /// caller's trace still shows its time in Postgres.
    nonisolated(nonsending) package func withRoundTripSpan<T>(
        for statement: PostgresStatement, _ body: nonisolated(nonsending) () async throws -> T
    ) async throws -> T {
        try await PostgresSpan.withRoundTrip(configuration, summary: { SQLSummary.of(statement.sql) }, body)
    }

    /// Runs `body`, which waits for a transaction another task stores (a group commit's batch),
    /// in the span the caller's own transaction would have had.
    nonisolated(nonsending) package func withTransactionSpan<T>(_ body: () async throws -> T) async throws -> T {
        try await PostgresSpan.withTransaction(configuration, body)
    }
}
