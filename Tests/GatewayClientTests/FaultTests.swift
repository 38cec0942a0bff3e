#if canImport(Glibc)
import Glibc
#endif
import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime
import Synchronization
import Testing
import TestSupport

/// No acknowledged write is lost: sign-ups run against the real `identity` executable while it
/// is killed with SIGKILL (a crash: no draining, no goodbye to clients). Every account the load generator got an answer for exists exactly once
/// afterwards, the service answers again after the fault, and an `EventConsumer` following
/// identity's `WatchEvents` applies every AccountCreated event exactly once.
@Suite(.serialized) struct FaultTests {
    static let secret = "fault-tests-consumer-secret-0123456789abcdef"

    /// Anonymous sign-ups from `streams` tasks until `stop`, recording every acknowledged account.
    final class SignUpLoad: Sendable {
        let acknowledged = Mutex<[String]>([])
        let failures = Mutex(0)
        let lastSuccess = Mutex<ContinuousClock.Instant?>(nil)
        private let running = Atomic(true)
        private let tasks = Mutex<[Task<Void, Never>]>([])

        init(port: Int, streams: Int) {
            let client = RPCClient(host: "127.0.0.1", port: port)
            let identity = IdentityClient(client: client)
            tasks.withLock { tasks in
                for stream in 0..<streams {
                    tasks.append(Task { [self] in
                        while running.load(ordering: .relaxed) {
                            do {
                                let session = try await identity.signInAnonymously(
                                    .init(app: "swivo", deviceName: "fault load \(stream)"), options: CallOptions(timeout: .seconds(2)))
                                acknowledged.withLock { $0.append(session.account?.id ?? "") }
                                lastSuccess.withLock { $0 = .now }
                            } catch {
                                failures.withLock { $0 += 1 }
                                try? await Task.sleep(for: .milliseconds(20))
                            }
                        }
                    })
                }
            }
        }

        var count: Int { acknowledged.withLock { $0.count } }

        /// Returns once `more` further sign-ups were acknowledged (or after `timeout`); the
        /// moment of the first of them.
        func waitForSuccesses(_ more: Int, timeout: Duration = .seconds(20)) async -> ContinuousClock.Instant? {
            let target = count + more
            let deadline = ContinuousClock.now + timeout
            var first: ContinuousClock.Instant?
            let start = count
            while ContinuousClock.now < deadline {
                if first == nil, count > start { first = .now }
                if count >= target { return first }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return nil
        }

        func stop() async {
            running.store(false, ordering: .relaxed)
            for task in tasks.withLock({ $0 }) { await task.value }
        }
    }

    /// Applies AccountCreated events into a table of its own, counting each account's applications.
    struct Follower {
        let consumer: EventConsumer
        let table: String
        let task: Task<Void, Never>

        static func start(identityPort: Int, pool: PostgresPool) async throws -> Follower {
            let table = "testsvc." + TestDatabase.uniqueName("fault_applied")
            let source = TestDatabase.uniqueName("identity_faults")
            try await pool.withConnection { connection in
                try await connection.executeScript(EventConsumer.ddl(schema: "testsvc"))
                try await connection.executeScript("CREATE TABLE \(table) (account_id text PRIMARY KEY, applied int NOT NULL)")
                // Start from the stream's current end: earlier tests' accounts are not ours.
                let end = try await connection.query("SELECT coalesce(max(cursor), 0) FROM identity.outbox")[0].decode(0, as: Int64.self)
                _ = try await connection.execute("INSERT INTO testsvc.event_cursors (source, cursor) VALUES ($1, $2)",
                                                 [.text(source), .int64(end)])
            }
            let consumer = try EventConsumer(
                source: source, schema: "testsvc", pool: pool, client: RPCClient(host: "127.0.0.1", port: identityPort),
                types: ["AccountCreated"], credential: try ServiceCredential(name: "faults", secret: FaultTests.secret)) { event, connection in
                    _ = try await connection.execute("""
                        INSERT INTO \(table) (account_id, applied) VALUES ($1, 1)
                        ON CONFLICT (account_id) DO UPDATE SET applied = \(table).applied + 1
                        """, [.text(event.aggregateID)])
                }
            return Follower(consumer: consumer, table: table, task: Task { await consumer.run() })
        }

        /// account id → times applied.
        func applied(pool: PostgresPool) async throws -> [String: Int] {
            try await pool.withConnection { connection in
                var result: [String: Int] = [:]
                for row in try await connection.query("SELECT account_id, applied FROM \(table)") {
                    result[try row.decode(0, as: String.self)] = try row.decode(1, as: Int.self)
                }
                return result
            }
        }
    }

    static func identityEnvironment(port: Int, postgresURL: String) -> [String: String] {
        ["RV_IDENTITY_PORT": String(port), "RV_IDENTITY_ADMIN_PORT": "0", "RV_PG_URL_IDENTITY": postgresURL,
         "RV_LOG_LEVEL": "error", "RV_SERVICE_CREDENTIALS": "faults=\(secret)"]
    }

    /// How many times each of `ids` exists in identity.accounts.
    static func stored(_ ids: [String], pool: PostgresPool) async throws -> [String: Int] {
        try await pool.withConnection { connection in
            var result: [String: Int] = [:]
            for row in try await connection.query(
                "SELECT id::text, count(*) FROM identity.accounts WHERE id::text = ANY($1::text[]) GROUP BY id", [.textArray(ids)]) {
                result[try row.decode(0, as: String.self)] = try row.decode(1, as: Int.self)
            }
            return result
        }
    }

    /// Every acknowledged account exists once, and the follower applied each account created
    /// since it started exactly once (none missing, none twice).
    static func expectNothingLost(_ load: SignUpLoad, _ follower: Follower, pool: PostgresPool) async throws {
        let acknowledged = load.acknowledged.withLock { $0 }
        #expect(Set(acknowledged).count == acknowledged.count)
        let stored = try await Self.stored(acknowledged, pool: pool)
        let missing = acknowledged.filter { stored[$0] != 1 }
        #expect(missing.isEmpty, "\(missing.count) of \(acknowledged.count) acknowledged accounts are missing or doubled")
        // The follower catches up: every acknowledged account applied once; nothing applied twice.
        var applied: [String: Int] = [:]
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            applied = try await follower.applied(pool: pool)
            if acknowledged.allSatisfy({ applied[$0] != nil }) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(acknowledged.filter { applied[$0] == nil }.isEmpty, "the consumer missed AccountCreated events")
        #expect(applied.values.allSatisfy { $0 == 1 }, "the consumer applied an event twice")
        print("fault: \(acknowledged.count) sign-ups acknowledged, \(stored.count) found once, "
              + "\(load.failures.withLock { $0 }) failed calls, \(applied.count) AccountCreated applied")
    }

    @Test func killingIdentityMidLoad_losesNoAcknowledgedSignUp_andItAnswersAgainOnRestart() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "admin", poolSize: 4))
        defer { pool.close() }
        let port = try LocalPort.free()
        let environment = Self.identityEnvironment(port: port, postgresURL: EndToEnd.postgresURL(role: "identity"))
        let first = try await EndToEndServiceProcess.start("identity", environment: environment)
        let follower = try await Follower.start(identityPort: port, pool: pool)
        let load = SignUpLoad(port: port, streams: 8)
        #expect(await load.waitForSuccesses(100) != nil)
        await first.kill()
        try await Task.sleep(for: .milliseconds(300))
        let restarted = ContinuousClock.now
        let second = try await EndToEndServiceProcess.start("identity", environment: environment)
        let answered = await load.waitForSuccesses(100)
        #expect(answered != nil, "no sign-up succeeded after the restart")
        await load.stop()
        if let answered { print("fault: identity answered \(answered - restarted) after its restart began") }
        try await Self.expectNothingLost(load, follower, pool: pool)
        follower.task.cancel()
        await second.stop()
    }
}
