import Postgres
import Runtime
import Testing
import TestSupport

/// `BatchedReads` against the real cluster: concurrent reads share round trips, and still each
/// caller gets exactly its own statement's rows or error.
@Suite struct BatchedReadsTests {
    /// `now()` is the start of the statement's transaction: reads that went out in one batch
    /// share it, reads sent alone do not.
    @Test(.timeLimit(.minutes(1)))
    func concurrentReads_shareRoundTrips_andEachGetsItsOwnRows() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 2))
        defer { pool.close() }
        let reads = BatchedReads(pool: pool, maxBatch: 32, maxRunning: 2)
        let answers = try await withThrowingTaskGroup(of: (Int64, Int64, Int64).self) { group in
            for n in Int64(0)..<300 {
                group.addTask {
                    let rows = try await reads.query(PostgresStatement(
                        "SELECT $1::int8 * 2, (extract(epoch FROM now()) * 1000000)::int8", [.int64(n)]))
                    #expect(rows.count == 1)
                    return (n, try rows[0].decode(0), try rows[0].decode(1))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 300)
        #expect(answers.allSatisfy { $0.1 == $0.0 * 2 }, "a read got another read's rows")
        let transactions = Set(answers.map(\.2)).count
        #expect(transactions < 300, "300 concurrent reads took \(transactions) transactions: none shared a round trip")
        print("batched reads: 300 concurrent reads in \(transactions) round trips")
    }

    /// The runner is held by a slow read, so the next five wait and go as one batch; one of them
    /// divides by zero. That error is its caller's alone: the other four get their rows, and the
    /// pool's connection serves the next read.
    @Test(.timeLimit(.minutes(1)))
    func aFailingRead_failsOnlyItsCaller_notTheOthersOfItsBatch() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 1))
        defer { pool.close() }
        let reads = BatchedReads(pool: pool, maxRunning: 1)
        let slow = Task { try await reads.query(PostgresStatement("SELECT pg_sleep(0.3)::text")) }
        try await Task.sleep(for: .milliseconds(50))
        let divisors: [Int32] = [1, 2, 0, 3, 4]
        let batch = divisors.map { divisor in
            Task { () -> Result<Int32?, PostgresError> in
                do {
                    let rows = try await reads.query(PostgresStatement("SELECT 60 / $1::int4 WHERE $1::int4 <> 4", [.int32(divisor)]))
                    return .success(rows.isEmpty ? nil : try rows[0].decode(0, as: Int32.self))
                } catch let error as PostgresError {
                    return .failure(error)
                }
            }
        }
        _ = try await slow.value
        var answers: [Result<Int32?, PostgresError>] = []
        for task in batch { answers.append(try await task.value) }
        #expect(try answers[0].get() == 60)
        #expect(try answers[1].get() == 30)
        #expect(try answers[3].get() == 20)
        #expect(try answers[4].get() == nil, "a read without rows is answered with none")
        guard case .failure(let error) = answers[2] else {
            Issue.record("dividing by zero succeeded: \(answers[2])")
            return
        }
        #expect(error.sqlState == .divisionByZero)
        let after = try await reads.query(PostgresStatement("SELECT 7::int4"))
        #expect(try after[0].decode(0, as: Int32.self) == 7)
    }
}
