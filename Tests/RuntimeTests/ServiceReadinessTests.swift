#if canImport(Glibc)
import Glibc
#endif
import Auth
import Contracts
import Foundation
import Postgres
import RPC
@testable import Runtime
import Synchronization
import Testing
import TestSupport

/// `/readyz` over HTTP and grpc.health.v1 over HTTP/2 as a service's runtime wires them
/// (`addPostgresReadinessCheck`, `follow`, `ReadinessPublisherService`), against the real
/// Postgres cluster: not ready while Postgres does not answer or a consumer is behind its bound,
/// ready again soon after.
@Suite struct ServiceReadinessTests {
    /// The harness's server and admin listener with a `ServiceContext` over its readiness, the
    /// context's jobs running and grpc.health.v1 following `/readyz`, as `ServiceMain` runs them.
    final class LiveRuntime: Sendable {
        let harness: RuntimeHarness
        let context: ServiceContext
        let client: RPCClient
        private let tasks = Mutex<[Task<Void, Never>]>([])

        init(environment: [String: String] = [:]) throws {
            harness = try RuntimeHarness()
            let configuration = try ServiceConfiguration.load(name: "testsvc", defaultPort: 0,
                                                              environment: Environment(environment), arguments: [])
            context = ServiceContext(configuration: configuration, logger: harness.logs.logger(label: "readiness"),
                                     metrics: harness.metrics, readiness: harness.readiness)
            client = harness.makeClient()
        }

        /// Runs what was registered: the context's jobs and the health publisher.
        func start() {
            let publisher = ReadinessPublisherService(readiness: harness.readiness, health: harness.server.health)
            var started = [Task { await publisher.run() }]
            for (_, job) in context.jobs { started.append(Task { try? await job() }) }
            tasks.withLock { $0 += started }
        }

        func stop() async {
            let running = tasks.withLock { $0 }
            for task in running { task.cancel() }
            for task in running { await task.value }
            client.close()
            await harness.stop()
        }

        func readyz() async throws -> HTTPProbe.Response {
            try await HTTPProbe.get("/readyz", port: harness.adminPort, timeoutSeconds: 5)
        }

        func health(_ service: String = "") async throws -> HealthCheckResponse.ServingStatus {
            try await client.unary(path: "/grpc.health.v1.Health/Check", request: HealthCheckRequest(service: service),
                                   as: HealthCheckResponse.self).message.status
        }

        /// Polls `/readyz` every 50 ms until it answers `status`: the response and how long it
        /// took, or nil after `timeout`.
        func waitForReadyz(_ status: Int, timeout: Duration = .seconds(10)) async throws -> (HTTPProbe.Response, Duration)? {
            let start = ContinuousClock.now
            while ContinuousClock.now - start < timeout {
                let response = try await readyz()
                if response.status == status { return (response, ContinuousClock.now - start) }
                try await Task.sleep(for: .milliseconds(50))
            }
            return nil
        }

        /// Polls grpc.health.v1 Check("") until it says `status`; whether it did within `timeout`.
        func waitForHealth(_ status: HealthCheckResponse.ServingStatus, timeout: Duration = .seconds(10)) async throws -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if try await health() == status { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
    }

    /// A database of the test's own stands in for the server: absent (every connect refused),
    /// created (the pool connects), dropped WITH (FORCE) (its backends terminated, connects
    /// refused again). Nothing else on the cluster notices.
    @Test(.timeLimit(.minutes(1)))
    func postgresUnreachable_is503AndNotServing_andReadyWithinSecondsOfItsReturn() async throws {
        let admin = try await TestDatabase.makeAdminPool()
        defer { admin.close() }
        let database = TestDatabase.uniqueName("rv_ready")
        var configuration = TestDatabase.configuration(role: "testsvc", poolSize: 2, applicationName: "rv-tests-readiness")
        configuration.database = database
        let pool = PostgresPool(configuration: configuration)
        defer { pool.close() }
        let runtime = try LiveRuntime()
        runtime.context.addPostgresReadinessCheck(pool)
        runtime.start()

        let down = try #require(try await runtime.waitForReadyz(503, timeout: .seconds(5)), "ready without a database")
        #expect(down.0.body == "postgres: unreachable (connectionFailed)\n")
        #expect(try await runtime.waitForHealth(.notServing, timeout: .seconds(5)))
        #expect(try await runtime.health(HealthService.livenessService) == .serving)

        try await admin.withConnection { try await $0.executeScript("CREATE DATABASE \(database)") }
        let up = try #require(try await runtime.waitForReadyz(200, timeout: .seconds(10)), "not ready after the database appeared")
        #expect(up.1 < .seconds(5), "ready \(up.1) after the database appeared")
        #expect(try await runtime.waitForHealth(.serving, timeout: .seconds(5)))

        try await admin.withConnection { try await $0.executeScript("DROP DATABASE \(database) WITH (FORCE)") }
        let gone = try #require(try await runtime.waitForReadyz(503, timeout: .seconds(10)), "still ready after the database went")
        #expect(gone.1 < .seconds(5), "not ready only \(gone.1) after the database went")
        #expect(gone.0.body.hasPrefix("postgres: unreachable ("))
        #expect(!gone.0.body.contains("rv_testsvc") && !gone.0.body.contains("password"))
        #expect(try await runtime.waitForHealth(.notServing, timeout: .seconds(5)))
        print("readiness: ready \(up.1) after the database appeared, not ready \(gone.1) after it went")
        await runtime.stop()
    }

    /// A server that accepts the TCP connection and never answers (a blackholed address) holds
    /// libpq's connect for its whole connect timeout; the probe answers within the check timeout.
    @Test(.timeLimit(.minutes(1)))
    func postgresHanging_answersTheProbeWithinTheCheckTimeout() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        var configuration = TestDatabase.configuration(role: "testsvc", poolSize: 2, applicationName: "rv-tests-readiness")
        configuration.port = silent.port
        configuration.connectTimeout = .seconds(15)
        let pool = PostgresPool(configuration: configuration)
        defer { pool.close() }
        let runtime = try LiveRuntime()
        runtime.context.addPostgresReadinessCheck(pool)

        let clock = ContinuousClock()
        var start = clock.now
        let first = try await runtime.readyz()
        let firstTook = clock.now - start
        start = clock.now
        let second = try await runtime.readyz()
        let secondTook = clock.now - start
        #expect(first.status == 503 && first.body == "postgres: timed out\n")
        #expect(firstTook < .seconds(3), "the first probe took \(firstTook)")
        #expect(second.status == 503 && second.body == "postgres: timed out\n")
        #expect(secondTook < .milliseconds(500), "a probe while the check hangs took \(secondTook)")
        print("readiness: hanging Postgres answered in \(firstTook), then in \(secondTook)")
        await runtime.stop()
    }

    /// A consumer whose handler holds an event falls behind: past RV_EVENT_LAG_BOUND_SECONDS
    /// `/readyz` names it and health says NOT_SERVING; once it applies, ready again.
    @Test(.timeLimit(.minutes(1)))
    func consumerBehindItsBound_is503NamingIt_andReadyOnceCaughtUp() async throws {
        let producerPool = try await TestDatabase.makePool()
        let consumerPool = try await TestDatabase.makePool()
        defer {
            producerPool.close()
            consumerPool.close()
        }
        try await EventsTests.makeCursorTable(pool: consumerPool)
        let producer = try await EventsTests.Producer(outbox: try await EventsTests.makeOutbox(pool: producerPool), pool: producerPool)
        let producerClient = RPCClient(host: "127.0.0.1", port: producer.server.port)
        let gate = Gate()
        let source = TestDatabase.uniqueName("ready")
        let consumer = try EventConsumer(source: source, schema: "testsvc", pool: consumerPool, client: producerClient,
                                         credential: EventsTests.consumerCredential) { event, _ in
            if event.payload == Array("event 0".utf8) { await gate.wait() }
        }
        let runtime = try LiveRuntime(environment: ["RV_EVENT_LAG_BOUND_SECONDS": "2"])
        runtime.context.follow(consumer)
        runtime.start()

        let current = try #require(try await runtime.waitForReadyz(200, timeout: .seconds(10)), "never ready with a current consumer")
        #expect(current.0.body == "ready\n")
        try await producer.append(1)
        let behind = try #require(try await runtime.waitForReadyz(503, timeout: .seconds(10)), "ready while the consumer was stuck")
        #expect(behind.0.body.hasPrefix("consumer \(source): "))
        #expect(behind.0.body.hasSuffix(" s behind (bound 2 s)\n"))
        #expect(try await runtime.waitForHealth(.notServing, timeout: .seconds(5)))
        let metrics = try await HTTPProbe.get("/metrics", port: runtime.harness.adminPort)
        let gauge = metrics.body.split(separator: "\n").first { $0.hasPrefix("event_consumer_lag_seconds{consumer=\"\(source)\"} ") }
        let seconds = try #require(gauge.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }, "no lag gauge for \(source)")
        #expect(seconds > 2)

        gate.open()
        let caughtUp = try #require(try await runtime.waitForReadyz(200, timeout: .seconds(10)), "not ready after catching up")
        #expect(caughtUp.1 < .seconds(3), "ready \(caughtUp.1) after catching up")
        #expect(try await runtime.waitForHealth(.serving, timeout: .seconds(5)))
        print("readiness: consumer \(behind.0.body.dropLast()); ready \(caughtUp.1) after it applied")
        await runtime.stop()
        producerClient.close()
        await producer.stop()
    }
}

/// A TCP listener that never accepts: the kernel completes handshakes into its backlog, and a
/// client then waits for an answer that never comes.
final class SilentListener: Sendable {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else {
            if fd >= 0 { _ = Glibc.close(fd) }
            throw ProbeError("cannot listen: errno \(errno)")
        }
        var boundAddress = sockaddr_in()
        var boundLength = length
        _ = withUnsafeMutablePointer(to: &boundAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &boundLength) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: boundAddress.sin_port))
    }

    func close() {
        _ = Glibc.close(fd)
    }
}
