import Auth
import Foundation
import Postgres
import RPC
import Runtime

/// How fast an `EventConsumer` catches up on identity's event history: a new consumer source
/// starts `events` before the stream's end (the events the workloads just wrote) and applies
/// each with one statement in identity's own schema, once with one transaction per event (how
/// consumers worked before batching) and once with the default batch limit. The cursor rows go
/// afterwards.
struct CatchUpBench {
    let identityPort: Int
    let postgresURL: String
    let credential: ServiceCredential
    let events: Int

    struct Result {
        var batchLimit: Int
        var events: Int
        var seconds: Double
        var perSecond: Double { Double(events) / seconds }
    }

    func run(batchLimit: Int) async throws -> Result {
        var configuration = try PostgresConfiguration(url: postgresURL)
        configuration.poolSize = 4
        let pool = PostgresPool(configuration: configuration)
        defer { pool.close() }
        let client = RPCClient(host: "127.0.0.1", port: identityPort)
        defer { client.close() }
        let source = "bench-catch-up-\(UUID().uuidString.prefix(8).lowercased())"
        let (start, end) = try await pool.withConnection { connection in
            let end: Int64 = try await connection.query("SELECT coalesce(max(cursor), 0) FROM identity.outbox")[0].decode(0)
            let start: Int64 = try await connection.query(
                "SELECT coalesce(min(cursor), 1) - 1 FROM (SELECT cursor FROM identity.outbox ORDER BY cursor DESC LIMIT $1) tail",
                [.int64(Int64(events))])[0].decode(0)
            _ = try await connection.execute("INSERT INTO identity.event_cursors (source, cursor) VALUES ($1, $2)",
                                             [.text(source), .int64(start)])
            return (start, end)
        }
        let applied: Int = try await pool.withConnection { connection in
            try await connection.query("SELECT count(*) FROM identity.outbox WHERE cursor > $1 AND cursor <= $2",
                                       [.int64(start), .int64(end)])[0].decode(0)
        }
        let consumer = try EventConsumer(source: source, schema: "identity", pool: pool, client: client,
                                         credential: credential, batchLimit: batchLimit) { event, connection in
            _ = try await connection.execute("SELECT $1::text", [.text(event.aggregateID)])
        }
        let began = ContinuousClock.now
        let task = Task { await consumer.run() }
        defer { task.cancel() }
        let deadline = began + .seconds(300)
        while try await consumer.storedCursor() < end {
            guard ContinuousClock.now < deadline else { throw CatchUpTimedOut(source: source) }
            try await Task.sleep(for: .milliseconds(5))
        }
        let elapsed = ContinuousClock.now - began
        task.cancel()
        await task.value
        try await pool.withConnection { connection in
            _ = try await connection.execute("DELETE FROM identity.event_cursors WHERE source = $1", [.text(source)])
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Result(batchLimit: batchLimit, events: applied, seconds: seconds)
    }

    struct CatchUpTimedOut: Error, CustomStringConvertible {
        var source: String
        var description: String { "consumer \(source) did not reach the stream's end within 300 s" }
    }
}
