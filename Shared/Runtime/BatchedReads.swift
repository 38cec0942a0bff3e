package import Postgres

/// Single statements that only read, from concurrent calls, sent to Postgres together through a
/// `GroupCommitQueue`: reads that arrive while others are in flight go as one pipeline on one
/// connection, one write and one read on its socket for all of them; a lone read goes at once,
/// alone. A batch's statements share one implicit transaction, so only statements without effects
/// belong here. When one fails, the others of its batch are run again alone: each caller gets its
/// own statement's rows or error.
///
/// A lane per event loop: a loop's reads go together on one of that loop's connections and are
/// answered on that loop, so no call waits for another loop's thread to wake (at 16 and 64
/// streams on two loops this cut 1.5-2 µs of server CPU a call against one shared queue).
package struct BatchedReads: Sendable {
    private let pool: PostgresPool
    private let queue: GroupCommitQueue<PostgresStatement, PostgresRows>

    /// At most `maxRunning` batches in flight per event loop (each holds a pooled connection
    /// while it runs), of at most `maxBatch` reads each.
    package init(pool: PostgresPool, maxBatch: Int = 64, maxRunning: Int = 4) {
        self.pool = pool
        queue = GroupCommitQueue(maxBatch: maxBatch, maxRunning: maxRunning, lanes: .perEventLoop) { statements in
            try await pool.withConnection { try await $0.pipeline(statements) }
        }
    }

    /// `statement`'s rows, in a span of the caller's trace as if it had its round trip to itself.
    nonisolated(nonsending) package func query(_ statement: PostgresStatement) async throws -> PostgresRows {
        try await pool.withRoundTripSpan(for: statement) { try await queue.submit(statement) }
    }
}
