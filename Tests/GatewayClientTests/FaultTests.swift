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
/// is killed with SIGKILL (a crash: no draining, no goodbye to clients), and while its Postgres
/// stops in immediate mode (a database crash: recovery from the WAL). Every account the load
/// generator got an answer for exists exactly once afterwards, the service answers again after
/// the fault, and an `EventConsumer` following identity's `WatchEvents` applies every
/// AccountCreated event exactly once.
@Suite(.serialized) struct FaultTests {
    static let secret = "fault-tests-consumer-secret-0123456789abcdef"

    /// Anonymous sign-ups from `streams` tasks until `stop`, recording every acknowledged account.
    final class SignUpLoad: Sendable {
        /// One acknowledged sign-up: the account, its session's access token, and the wall clock
        /// (microseconds since the epoch, the clock Postgres stamps commits with) when the call
        /// was sent and when its answer came.
        struct Answer: Sendable {
            let accountID: String
            let accessToken: String
            let sentMicros: Int64
            let answeredMicros: Int64
        }

        let answers = Mutex<[Answer]>([])
        let failures = Mutex(0)
        let lastSuccess = Mutex<ContinuousClock.Instant?>(nil)
        private let running = Atomic(true)
        private let tasks = Mutex<[Task<Void, Never>]>([])

        /// The acknowledged accounts, in the order their answers came.
        var acknowledged: [String] { answers.withLock { $0.map(\.accountID) } }
        init(port: Int, streams: Int) {
            let client = RPCClient(host: "127.0.0.1", port: port)
            let identity = IdentityClient(client: client)
            tasks.withLock { tasks in
                for stream in 0..<streams {
                    tasks.append(Task { [self] in
                        while running.load(ordering: .relaxed) {
                            do {
                                let sent = Self.wallClockMicros()
                                let session = try await identity.signInAnonymously(
                                    .init(app: "swivo", deviceName: "fault load \(stream)"), options: CallOptions(timeout: .seconds(2)))
                                let answer = Answer(accountID: session.account?.id ?? "", accessToken: session.accessToken,
                                                    sentMicros: sent, answeredMicros: Self.wallClockMicros())
                                answers.withLock { $0.append(answer) }
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

        var count: Int { answers.withLock { $0.count } }

        /// CLOCK_REALTIME in whole microseconds.
        static func wallClockMicros() -> Int64 {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
        }

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
        /// The stream's name in `testsvc.event_cursors`, where its cursor is kept.
        let source: String
        let table: String
        let task: Task<Void, Never>

        /// `pool` is the consumer's own (role `rv_testsvc`, which owns what it creates, as a
        /// service owns its schema); `admin` reads where identity's stream ends now.
        static func start(identityPort: Int, pool: PostgresPool, admin: PostgresPool) async throws -> Follower {
            let table = "testsvc." + TestDatabase.uniqueName("fault_applied")
            let source = TestDatabase.uniqueName("identity_faults")
            // Start from the stream's current end: earlier tests' accounts are not ours.
            let end = try await admin.withConnection { connection in
                try await connection.query("SELECT coalesce(max(cursor), 0) FROM identity.outbox")[0].decode(0, as: Int64.self)
            }
            try await pool.withConnection { connection in
                try await connection.executeScript(EventConsumer.ddl(schema: "testsvc"))
                try await connection.executeScript("CREATE TABLE \(table) (account_id text PRIMARY KEY, applied int NOT NULL)")
                _ = try await connection.execute("INSERT INTO testsvc.event_cursors (source, cursor) VALUES ($1, $2)",
                                                 [.text(source), .int64(end)])
            }
            return try follow(source: source, table: table, identityPort: identityPort, pool: pool)
        }

        /// The same follower on another database holding its table and cursor (a restored
        /// cluster), resuming from the cursor stored there.
        func resumed(identityPort: Int, pool: PostgresPool) throws -> Follower {
            try Self.follow(source: source, table: table, identityPort: identityPort, pool: pool)
        }

        private static func follow(source: String, table: String, identityPort: Int, pool: PostgresPool) throws -> Follower {
            let consumer = try EventConsumer(
                source: source, schema: "testsvc", pool: pool, client: RPCClient(host: "127.0.0.1", port: identityPort),
                types: ["AccountCreated"], credential: try ServiceCredential(name: "faults", secret: FaultTests.secret)) { event, connection in
                    _ = try await connection.execute("""
                        INSERT INTO \(table) (account_id, applied) VALUES ($1, 1)
                        ON CONFLICT (account_id) DO UPDATE SET applied = \(table).applied + 1
                        """, [.text(event.aggregateID)])
                }
            return Follower(consumer: consumer, source: source, table: table, task: Task { await consumer.run() })
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

    static func identityEnvironment(port: Int, adminPort: Int = 0, postgresURL: String) -> [String: String] {
        ["RV_IDENTITY_PORT": String(port), "RV_IDENTITY_ADMIN_PORT": String(adminPort), "RV_PG_URL_IDENTITY": postgresURL,
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
    static func expectNothingLost(_ load: SignUpLoad, _ follower: Follower, pool: PostgresPool,
                                  admin: PostgresPool) async throws {
        let acknowledged = load.acknowledged
        #expect(Set(acknowledged).count == acknowledged.count)
        let stored = try await Self.stored(acknowledged, pool: admin)
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

    /// A test that throws before it stops a service it started must not leave the service
    /// running after it (it would go on serving the shared database): letting go of the handle
    /// kills the process.
    @Test func aServiceNobodyStopped_isKilledWhenItsHandleGoes() async throws {
        let adminPort = try LocalPort.free()
        do {
            let orphan = try await EndToEndServiceProcess.start(
                "identity", environment: Self.identityEnvironment(port: 0, adminPort: adminPort,
                                                                  postgresURL: EndToEnd.postgresURL(role: "identity")))
            #expect(try await HTTPProbe.get("/readyz", port: adminPort).status == 200)
            _ = orphan.port
        }
        let deadline = ContinuousClock.now + .seconds(5)
        var stillServing = true
        while stillServing, ContinuousClock.now < deadline {
            stillServing = (try? await HTTPProbe.get("/readyz", port: adminPort, timeoutSeconds: 1)) != nil
            if stillServing { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(!stillServing, "identity still answers on its admin port after its handle went")
    }

    @Test func killingIdentityMidLoad_losesNoAcknowledgedSignUp_andItAnswersAgainOnRestart() async throws {
        let pool = try await TestDatabase.makePool()
        let admin = try await TestDatabase.makeAdminPool()
        defer {
            pool.close()
            admin.close()
        }
        let port = try LocalPort.free()
        let environment = Self.identityEnvironment(port: port, postgresURL: EndToEnd.postgresURL(role: "identity"))
        let first = try await EndToEndServiceProcess.start("identity", environment: environment)
        let follower = try await Follower.start(identityPort: port, pool: pool, admin: admin)
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
        try await Self.expectNothingLost(load, follower, pool: pool, admin: admin)
        follower.task.cancel()
        await second.stop()
    }

    /// A Postgres cluster of this test's own (`compose/local/db.sh` with its own folder and
    /// port, `synchronous_commit = on` as `make run` has it), so crashing it disturbs no other test.
    /// db.sh keeps its WAL archive and base backups in folders beside it (`-wal-archive`, `-backups`).
    struct ScratchCluster {
        let port: Int
        let directory: String

        static func start(name: String = "rv-fault-pg") async throws -> ScratchCluster {
            let cluster = ScratchCluster(port: try LocalPort.free(), directory: NSTemporaryDirectory() + "\(name)-\(UUID().uuidString.prefix(8))")
            try await cluster.run("start")
            return cluster
        }

        /// Runs `db.sh command arguments…` on this cluster; returns its standard output (what it
        /// prints for scripts: a backup's folder, a restored cluster's folder).
        @discardableResult
        func run(_ command: String, _ arguments: [String] = [], environment: [String: String] = [:]) async throws -> String {
            let script = RepositoryPaths.root.appendingPathComponent("compose/local/db.sh").path
            let result = try await Subprocess.run("/bin/bash", [script, command] + arguments, environment: environment.merging([
                "RV_DATA_DIR": directory, "RV_PG_PORT": String(port)]) { _, cluster in cluster }, separateErrorOutput: true)
            guard result.exitCode == 0 else {
                throw SubprocessError(message: "db.sh \(command) failed (\(result.exitCode)):\n\(result.output)\(result.errorOutput)")
            }
            return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// `environment` with the sessions' `synchronous_commit` on, as `make run`'s are: make
        /// test's PGOPTIONS relaxes it, and the crash must only lose what was never acknowledged.
        func durable(_ environment: [String: String]) -> [String: String] {
            environment.merging(["PGOPTIONS": "-c synchronous_commit=on"]) { _, durable in durable }
        }

        func configuration(role: String, poolSize: Int = 4) -> PostgresConfiguration {
            var configuration = TestDatabase.configuration(role: role, poolSize: poolSize)
            configuration.port = port
            return configuration
        }

        func url(role: String) -> String {
            let configuration = configuration(role: role)
            return "postgresql://\(configuration.user):\(configuration.password ?? "")@\(configuration.host):\(port)/\(configuration.database)"
        }

        func remove() async {
            try? await run("stop")
            for folder in [directory, directory + "-wal-archive", directory + "-backups"] {
                try? FileManager.default.removeItem(atPath: folder)
            }
        }
    }

    /// The admin listener's `/readyz` status, or nil when it does not answer.
    static func readiness(adminPort: Int) async -> Int? {
        try? await HTTPProbe.get("/readyz", port: adminPort, timeoutSeconds: 5).status
    }

    /// Polls `/readyz` every 50 ms until it answers `status`; the moment it did, or nil after `timeout`.
    static func waitForReadiness(_ status: Int, adminPort: Int, timeout: Duration) async -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await readiness(adminPort: adminPort) == status { return .now }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    @Test func postgresCrashingMidLoad_losesNoAcknowledgedSignUp_andIdentityIsReadyWithin5sOfItsReturn() async throws {
        let cluster = try await ScratchCluster.start()
        let pool = PostgresPool(configuration: cluster.configuration(role: "testsvc"))
        let admin = PostgresPool(configuration: cluster.configuration(role: "admin", poolSize: 2))
        let port = try LocalPort.free()
        let adminPort = try LocalPort.free()
        let identity = try await EndToEndServiceProcess.start(
            "identity", environment: cluster.durable(Self.identityEnvironment(port: port, adminPort: adminPort,
                                                                              postgresURL: cluster.url(role: "identity"))))
        let follower = try await Follower.start(identityPort: port, pool: pool, admin: admin)
        let load = SignUpLoad(port: port, streams: 8)
        #expect(await load.waitForSuccesses(100) != nil)
        #expect(await Self.readiness(adminPort: adminPort) == 200)

        try await cluster.run("kill")
        let crashed = ContinuousClock.now
        let notReady = await Self.waitForReadiness(503, adminPort: adminPort, timeout: .seconds(10))
        #expect(notReady != nil, "identity kept reporting ready while its database was gone")
        try await Task.sleep(for: .seconds(1))
        try await cluster.run("start")
        let returned = ContinuousClock.now
        let ready = await Self.waitForReadiness(200, adminPort: adminPort, timeout: .seconds(20))
        #expect(ready != nil, "identity did not report ready again after its database returned")
        if let ready { #expect(ready - returned <= .seconds(5), "ready \(ready - returned) after the database returned") }
        let answered = await load.waitForSuccesses(100)
        #expect(answered != nil, "no sign-up succeeded after the database returned")
        await load.stop()
        if let notReady, let ready, let answered {
            print("fault: not ready \(notReady - crashed) after the crash; ready \(ready - returned) and a sign-up answered "
                  + "\(answered - returned) after the database returned")
        }
        try await Self.expectNothingLost(load, follower, pool: pool, admin: admin)
        follower.task.cancel()
        await identity.stop()
        pool.close()
        admin.close()
        await cluster.remove()
    }
}
