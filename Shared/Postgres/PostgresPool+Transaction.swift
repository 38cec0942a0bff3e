/// Transaction isolation levels (PostgreSQL 15 docs, section 13.2).
package enum TransactionIsolation: Sendable {
    case readCommitted
    case repeatableRead
    case serializable

    var sql: String {
        switch self {
        case .readCommitted: "READ COMMITTED"
        case .repeatableRead: "REPEATABLE READ"
        case .serializable: "SERIALIZABLE"
        }
    }
}

extension PostgresPool {
    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// On a serialization failure (40001) or deadlock (40P01), from any statement or from
    /// COMMIT, the whole transaction is retried, up to `maxAttempts` times in all, after a
    /// jittered exponential backoff. `body` may therefore run more than once: it must be
    /// idempotent apart from its database effects (no side effects outside the transaction).
    @discardableResult
    nonisolated(nonsending) package func withTransaction<T>(
        isolation: TransactionIsolation = .readCommitted,
        maxAttempts: Int = 5,
        _ body: (Connection) async throws -> T
    ) async throws -> T {
        try await PostgresSpan.withTransaction(configuration) {
            var attempt = 1
            while true {
                do {
                    return try await withConnection { connection in
                        try await connection.inTransaction(isolation, body)
                    }
                } catch let error as PostgresError where error.isRetryableTransactionFailure && attempt < maxAttempts {
                    try await Task.sleep(for: Self.backoff(attempt: attempt))
                    attempt += 1
                }
            }
        }
    }

    /// 2 ms doubling per attempt, capped at 200 ms, times a random factor in [0.5, 1.5).
    static func backoff(attempt: Int) -> Duration {
        let base = min(200.0, 2.0 * Double(1 << min(attempt, 10)))
        return .microseconds(Int64(base * Double.random(in: 0.5..<1.5) * 1000))
    }
}

extension Connection {
    /// One attempt of a transaction on this connection.
    nonisolated(nonsending) func inTransaction<T>(
        _ isolation: TransactionIsolation, _ body: (Connection) async throws -> T
    ) async throws -> T {
        // Sent with the body's first statement, one round trip for both.
        deferBegin("BEGIN ISOLATION LEVEL \(isolation.sql)")
        beginTrackingCommit()
        do {
            let value = try await body(self)
            if isInFailedTransaction {
                // A statement failed and `body` swallowed the error: COMMIT would silently roll back.
                throw PostgresError(code: .sqlState(.inFailedSqlTransaction),
                                    context: "a statement failed inside the transaction")
            }
            let atCommit = takeCommitStatements()
            if !atCommit.isEmpty {
                // With a BEGIN still pending, it goes out in the same pipeline (`run`).
                _ = try await run(.pipeline(atCommit + [PostgresStatement("COMMIT")]))
            } else if !dropPendingBegin() {
                // A body that ran no statement began nothing: there is nothing to commit.
                try await executeScript("COMMIT")
            }
            for action in endTrackingCommit() { action() }
            return value
        } catch {
            _ = endTrackingCommit()
            if !dropPendingBegin(), !isBroken { try? await executeScript("ROLLBACK") }
            throw error
        }
    }
}
