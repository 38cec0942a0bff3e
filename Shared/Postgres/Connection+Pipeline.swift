/// One statement of a pipeline.
package struct PostgresStatement: Sendable {
    package var sql: String
    package var params: [PostgresValue]

    package init(_ sql: String, _ params: [PostgresValue] = []) {
        self.sql = sql
        self.params = params
    }
}

extension Connection {
    /// Sends several statements in one round trip (libpq pipeline mode) and returns their
    /// results in order. They run in one implicit transaction: if one fails, the rest are
    /// skipped, nothing is committed, and its error is thrown. Statements not yet prepared on
    /// this connection are prepared first, one round trip each.
    nonisolated(nonsending) package func pipeline(_ statements: [PostgresStatement]) async throws -> [PostgresRows] {
        guard !statements.isEmpty else { return [] }
        return try await run(.pipeline(statements))
    }
}
