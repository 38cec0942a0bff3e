internal import CLibPQ

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
    /// skipped, nothing is committed, and its error is thrown. Keep batches small (tens of
    /// statements): the connection sends in blocking mode.
    package func pipeline(_ statements: [PostgresStatement]) async throws -> [PostgresRows] {
        guard !statements.isEmpty else { return [] }
        return try await onWorker { connection throws(PostgresError) in try connection.runPipeline(statements) }
    }
}

extension Connection {
    func runPipelineOnWorker(_ handle: OpaquePointer, _ statements: [PostgresStatement],
                             names: [String]) throws(PostgresError) -> [PostgresRows] {
        guard PQenterPipelineMode(handle) == 1 else { throw PostgresError(code: .protocolViolation) }
        defer { PQexitPipelineMode(handle) }
        for (statement, name) in zip(statements, names) {
            let sent = LibPQ.withParameters(statement.params) { values, lengths, formats in
                PQsendQueryPrepared(handle, name, Int32(statement.params.count), values, lengths, formats, 1)
            }
            guard sent == 1 else { throw lostOrViolation(handle) }
        }
        guard PQpipelineSync(handle) == 1 else { throw lostOrViolation(handle) }
        var rows: [PostgresRows] = []
        var firstError: PostgresError?
        for _ in statements {
            guard let result = PQgetResult(handle) else { throw lostOrViolation(handle) }
            let status = PQresultStatus(result)
            if status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK {
                rows.append(LibPQ.rows(from: result))
            } else if status != PGRES_PIPELINE_ABORTED, firstError == nil {
                firstError = LibPQ.error(from: result)
            }
            PQclear(result)
            while let extra = PQgetResult(handle) { PQclear(extra) }  // each query ends with NULL
        }
        // The sync point closes the pipeline.
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if let firstError { throw firstError }
        return rows
    }

    private func lostOrViolation(_ handle: OpaquePointer) -> PostgresError {
        PostgresError(code: PQstatus(handle) == CONNECTION_OK ? .protocolViolation : .connectionLost)
    }
}
