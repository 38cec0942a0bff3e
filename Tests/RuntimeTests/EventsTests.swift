import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime
import Synchronization
import Testing
import TestSupport

/// The outbox, its WatchEvents stream and the exactly-once consumer, over a live socket and the
/// real Postgres cluster. WatchEvents is internal: callers present a service credential.
@Suite struct EventsTests {
    // Valid literals: a name of a-z and a 40-character secret.
    static let consumerCredential = try! ServiceCredential(name: "consumer", secret: String(repeating: "c", count: 40))
    static let watch = CallOptions.service(consumerCredential)

    /// A producer: an outbox with its own table names and a server streaming it to the
    /// services `accepted` holds.
    final class Producer: Sendable {
        let outbox: Outbox
        let pool: PostgresPool
        let notifier: OutboxNotifier
        let server: RPCServer

        init(outbox: Outbox, pool: PostgresPool, port: Int = 0,
             accepted: ServiceCredentials = ServiceCredentials([EventsTests.consumerCredential])) async throws {
            self.outbox = outbox
            self.pool = pool
            notifier = try await OutboxNotifier(configuration: TestDatabase.configuration(applicationName: "rv-tests-notifier"),
                                                channel: outbox.channel)
            var configuration = RPCServerConfiguration()
            configuration.port = port
            configuration.loopCount = 1
            server = try RPCServer(configuration: configuration,
                                   services: [EventStreamService(outbox: outbox, pool: pool, notifier: notifier)],
                                   interceptors: [ServiceAuthInterceptor(credentials: accepted,
                                                                         methods: EventStreamService.internalMethods)])
            try server.start()
        }

        func stop() async {
            await server.shutdown(gracePeriod: .milliseconds(200))
            notifier.close()
        }

        @discardableResult
        func append(_ count: Int, type: String = "Thing") async throws -> [Int64] {
            var cursors: [Int64] = []
            for index in 0..<count {
                let cursor = try await pool.withTransaction { connection in
                    try await outbox.append(OutboxEvent(type: type, app: "swivo", aggregateID: UUID().uuidString,
                                                        payload: Array("event \(index)".utf8)), on: connection)
                }
                cursors.append(cursor)
            }
            return cursors
        }
    }

    /// A consumer test's two sides: a producer serving an outbox of its own, and the consumer's
    /// pool with the cursor table and a table `applied` (of `columns`) for what it applies.
    struct ConsumerFixture {
        let producerPool: PostgresPool
        let consumerPool: PostgresPool
        let outbox: Outbox
        let applied: String
        let producer: Producer
        let client: RPCClient

        static func make(applied columns: String) async throws -> ConsumerFixture {
            let producerPool = try await TestDatabase.makePool()
            let consumerPool = try await TestDatabase.makePool()
            do {
                let outbox = try await EventsTests.makeOutbox(pool: producerPool)
                let applied = TestDatabase.uniqueName("applied")
                try await EventsTests.makeCursorTable(pool: consumerPool)
                try await consumerPool.withConnection { connection in
                    try await connection.executeScript("CREATE TABLE testsvc.\(applied) (\(columns));")
                }
                let producer = try await Producer(outbox: outbox, pool: producerPool)
                return ConsumerFixture(producerPool: producerPool, consumerPool: consumerPool, outbox: outbox, applied: applied,
                                       producer: producer, client: RPCClient(host: "127.0.0.1", port: producer.server.port))
            } catch {
                producerPool.close()
                consumerPool.close()
                throw error
            }
        }

        /// Closes the client and both pools (the test stops the producer it ends with).
        func close() {
            client.close()
            producerPool.close()
            consumerPool.close()
        }
    }

    /// Runs `consumer` until its stored cursor reaches `cursor` (20 s at most), then stops it.
    static func run(_ consumer: EventConsumer, untilItStores cursor: Int64) async throws {
        let running = Task { await consumer.run() }
        let deadline = ContinuousClock.now + .seconds(20)
        while try await consumer.storedCursor() < cursor, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        running.cancel()
        await running.value
    }

    static func makeOutbox(pool: PostgresPool) async throws -> Outbox {
        let outbox = try Outbox(schema: "testsvc", stream: TestDatabase.uniqueName("outbox"))
        try await pool.withConnection { try await $0.executeScript(outbox.ddl) }
        return outbox
    }

    /// The consumers' cursor table in `testsvc`, made once for all the tests that run at the
    /// same time (an advisory lock: concurrent `CREATE TABLE IF NOT EXISTS` can collide).
    static func makeCursorTable(pool: PostgresPool) async throws {
        try await pool.withConnection { connection in
            try await connection.executeScript("""
                SELECT pg_advisory_lock(4242);
                \(EventConsumer.ddl(schema: "testsvc"))
                SELECT pg_advisory_unlock(4242);
                """)
        }
    }

    @Test func watchEvents_sendsHistoryThenLiveEventsInCursorOrder() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let producer = try await Producer(outbox: try await Self.makeOutbox(pool: pool), pool: pool)
        let history = try await producer.append(3)
        let client = RPCClient(host: "127.0.0.1", port: producer.server.port)
        let stream = try await client.serverStreaming(path: "/\(EventStreamClient.serviceName)/WatchEvents",
                                                      request: Events.WatchEventsRequest(afterCursor: 0), as: Events.Event.self,
                                                      options: Self.watch)
        var received: [Events.Event] = []
        var live: [Int64] = []
        for try await event in stream {
            received.append(event)
            if received.count == 3 {
                // History is in; these arrive only through NOTIFY (the poll interval is 5 s).
                live = try await producer.append(2, type: "Live")
            }
            if received.count == 5 { break }
        }
        stream.cancel()
        #expect(received.map(\.cursor) == history + live)
        #expect(received.map(\.type) == ["Thing", "Thing", "Thing", "Live", "Live"])
        #expect(received[0].payload == Array("event 0".utf8))
        #expect(received[0].app == "swivo")
        #expect((received[0].occurredAt?.seconds ?? 0) > 1_700_000_000)
        await producer.stop()
        client.close()
    }

    @Test func watchEvents_afterCursorAndTypeFilter_skipEarlierAndOtherEvents() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let producer = try await Producer(outbox: try await Self.makeOutbox(pool: pool), pool: pool)
        let first = try await producer.append(2, type: "A")
        let wanted = try await producer.append(2, type: "B")
        _ = try await producer.append(1, type: "A")
        let client = RPCClient(host: "127.0.0.1", port: producer.server.port)
        let stream = try await client.serverStreaming(
            path: "/\(EventStreamClient.serviceName)/WatchEvents",
            request: Events.WatchEventsRequest(afterCursor: first[0], types: ["B"]), as: Events.Event.self,
            options: Self.watch)
        var cursors: [Int64] = []
        for try await event in stream {
            cursors.append(event.cursor)
            if cursors.count == 2 { break }
        }
        stream.cancel()
        #expect(cursors == wanted)
        await producer.stop()
        client.close()
    }

    @Test func watchEvents_negativeCursor_isInvalidArgument() async throws {
        let status = try await Self.refusal(of: Events.WatchEventsRequest(afterCursor: -5))
        #expect(status.code == .invalidArgument)
        #expect(status.reason == "INVALID_CURSOR")
    }

    /// occurred_after outside google.protobuf.Timestamp's range is INVALID_CURSOR, not clamped.
    @Test(arguments: [Timestamp(seconds: 1_700_000_000, nanos: -5), Timestamp(seconds: Timestamp.maximumSeconds + 1)])
    func watchEvents_occurredAfterOutOfRange_isInvalidArgument(time: Timestamp) async throws {
        var request = Events.WatchEventsRequest()
        request.occurredAfter = time
        let status = try await Self.refusal(of: request)
        #expect(status.code == .invalidArgument)
        #expect(status.reason == "INVALID_CURSOR")
    }

    /// How a producer of its own refuses WatchEvents `request` (within a deadline: a stream that
    /// accepted it would stay open, waiting for events).
    static func refusal(of request: Events.WatchEventsRequest) async throws -> RPCError {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let producer = try await Producer(outbox: try await Self.makeOutbox(pool: pool), pool: pool)
        let client = RPCClient(host: "127.0.0.1", port: producer.server.port)
        let stream = try await client.serverStreaming(path: "/\(EventStreamClient.serviceName)/WatchEvents",
                                                      request: request, as: Events.Event.self,
                                                      options: .service(consumerCredential, timeout: .seconds(5)))
        await #expect(throws: RPCError.self) {
            for try await _ in stream {}
        }
        let status = await stream.status()
        await producer.stop()
        client.close()
        return status
    }

    /// The final status of a WatchEvents call made with `options`; records an issue if any
    /// event arrived.
    static func watchStatus(port: Int, _ options: CallOptions) async throws -> RPCError {
        let client = RPCClient(host: "127.0.0.1", port: port)
        defer { client.close() }
        let stream = try await client.serverStreaming(path: "/\(EventStreamClient.serviceName)/WatchEvents",
                                                      request: Events.WatchEventsRequest(afterCursor: 0), as: Events.Event.self,
                                                      options: options)
        var received = 0
        do {
            for try await _ in stream { received += 1 }
        } catch {}
        #expect(received == 0)
        return await stream.status()
    }

    @Test func watchEvents_withoutAcceptedCredential_isUnauthenticated_andSendsNothing() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let producer = try await Producer(outbox: try await Self.makeOutbox(pool: pool), pool: pool)
        try await producer.append(2)
        let port = producer.server.port

        let missing = try await Self.watchStatus(port: port, CallOptions())
        #expect(missing.code == .unauthenticated && missing.reason == "MISSING_SERVICE_CREDENTIAL")
        let bearer = try await Self.watchStatus(port: port, CallOptions(metadata: Metadata(["authorization": "Bearer abc.def.ghi"])))
        #expect(bearer.code == .unauthenticated && bearer.reason == "MISSING_SERVICE_CREDENTIAL")
        let wrongSecret = try ServiceCredential(name: "consumer", secret: String(repeating: "w", count: 40))
        let bad = try await Self.watchStatus(port: port, .service(wrongSecret))
        #expect(bad.code == .unauthenticated && bad.reason == "BAD_SERVICE_CREDENTIAL")
        await producer.stop()
    }

    @Test func watchEvents_producerWithNoAcceptedCallers_refusesEveryConsumer() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let producer = try await Producer(outbox: try await Self.makeOutbox(pool: pool), pool: pool, accepted: ServiceCredentials())
        let status = try await Self.watchStatus(port: producer.server.port, Self.watch)
        #expect(status.code == .unauthenticated && status.reason == "BAD_SERVICE_CREDENTIAL")
        await producer.stop()
    }

    @Test func watchEvents_servedWithoutTheInterceptor_refusesEveryCall() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let outbox = try await Self.makeOutbox(pool: pool)
        let notifier = try await OutboxNotifier(configuration: TestDatabase.configuration(applicationName: "rv-tests-notifier"),
                                                channel: outbox.channel)
        defer { notifier.close() }
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let server = try RPCServer(configuration: configuration,
                                   services: [EventStreamService(outbox: outbox, pool: pool, notifier: notifier)])
        try server.start()
        let status = try await Self.watchStatus(port: server.port, Self.watch)
        #expect(status.code == .unauthenticated && status.reason == "MISSING_SERVICE_CREDENTIAL")
        await server.shutdown(gracePeriod: .zero)
    }

    /// Another instance hears a commit through the NOTIFY; the instance that committed woke its
    /// own watchers at the commit and does not wake them again when its NOTIFY comes back.
    @Test func aCommit_wakesAnotherInstanceByNotify_andItsOwnWatchersOnce() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let outbox = try await Self.makeOutbox(pool: pool)
        let configuration = TestDatabase.configuration(applicationName: "rv-tests-notifier")
        let other = try await OutboxNotifier(configuration: configuration, channel: outbox.channel)
        defer { other.close() }
        // Registered last for the channel: the one commits in this process tell.
        let writer = try await OutboxNotifier(configuration: configuration, channel: outbox.channel)
        defer { writer.close() }
        let (writerSeen, otherSeen) = (writer.generation, other.generation)
        try await pool.withTransaction { connection in
            try await outbox.append(OutboxEvent(type: "Thing", app: "swivo", aggregateID: "a", payload: []), on: connection)
        }
        await other.wait(after: otherSeen, timeout: .seconds(5))
        #expect(other.generation > otherSeen, "the other instance heard the NOTIFY")
        // The NOTIFY reached the other instance's LISTEN connection; give the writer's as long again.
        try await Task.sleep(for: .milliseconds(300))
        #expect(writer.generation == writerSeen + 1, "woken at the commit, not again by its own NOTIFY")
    }

    @Test func outbox_rejectsNamesThatAreNotIdentifiers() {
        #expect(throws: PostgresError.self) { try Outbox(schema: "testsvc; DROP TABLE x", stream: "outbox") }
        #expect(throws: PostgresError.self) { try Outbox(schema: "testsvc", stream: "Outbox") }
    }

    /// Producer and consumer restarts, a consumer that was down, and two consumers sharing a
    /// source: every event is applied exactly once, in cursor order.
    @Test func consumer_appliesEveryEventOnce_acrossRestartsAndDowntime() async throws {
        let fixture = try await ConsumerFixture.make(applied: "event_id text NOT NULL, cursor bigint NOT NULL, applied_at timestamptz DEFAULT clock_timestamp()")
        defer { fixture.close() }
        let (producerPool, consumerPool, outbox, applied, client) = (fixture.producerPool, fixture.consumerPool, fixture.outbox, fixture.applied, fixture.client)
        var producer = fixture.producer
        let port = producer.server.port
        let source = TestDatabase.uniqueName("source")
        let consumer = try EventConsumer(source: source, schema: "testsvc", pool: consumerPool, client: client,
                                         credential: Self.consumerCredential) { event, connection in
            _ = try await connection.execute("INSERT INTO testsvc.\(applied) (event_id, cursor) VALUES ($1, $2)",
                                             [.text(event.id), .int64(event.cursor)])
        }

        func appliedCount() async throws -> Int {
            try await consumerPool.withConnection { connection in
                try await connection.query("SELECT count(*) FROM testsvc.\(applied)")[0].decode(0, as: Int.self)
            }
        }
        func waitForApplied(_ count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while try await appliedCount() < count {
                guard ContinuousClock.now < deadline else {
                    Issue.record("only \(try await appliedCount()) of \(count) events applied")
                    return
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        var cursors = try await producer.append(5)
        var running = Task { await consumer.run() }
        try await waitForApplied(5)

        // Consumer down while 5 more are produced; it resumes from its stored cursor.
        running.cancel()
        await running.value
        cursors += try await producer.append(5)
        #expect(try await appliedCount() == 5)
        running = Task { await consumer.run() }
        try await waitForApplied(10)

        // Producer restarts on the same port; events committed while it was down still arrive.
        await producer.stop()
        cursors += try await producer.append(5)
        producer = try await Producer(outbox: outbox, pool: producerPool, port: port)
        try await waitForApplied(15)

        // A second instance with the same source: the cursor row lock keeps each event single.
        let second = Task { await consumer.run() }
        cursors += try await producer.append(10)
        try await waitForApplied(25)
        try await Task.sleep(for: .milliseconds(300))
        running.cancel()
        second.cancel()
        await running.value
        await second.value
        await producer.stop()

        let rows = try await consumerPool.withConnection { connection in
            try await connection.query("SELECT cursor, count(*) OVER (PARTITION BY event_id) FROM testsvc.\(applied) ORDER BY applied_at, cursor")
        }
        let appliedCursors = try rows.map { try $0.decode(0, as: Int64.self) }
        let duplicates = try rows.filter { try $0.decode(1, as: Int.self) > 1 }.count
        #expect(duplicates == 0)
        #expect(appliedCursors == cursors)
        #expect(try await consumer.storedCursor() == cursors.last)
    }

    /// Commits of the consumer lost after it made them (a crash with `synchronous_commit = off`,
    /// a failover to a standby behind, a restore): its stored cursor and what it applied go back
    /// together while its stream stays open past them. The consumer follows again from the
    /// stored cursor, so the events whose application was lost are applied again, once.
    @Test func consumer_whoseCommitsWereLost_appliesTheirEventsAgain() async throws {
        let fixture = try await ConsumerFixture.make(applied: "event_id text NOT NULL, cursor bigint NOT NULL")
        defer { fixture.close() }
        let (consumerPool, applied, client) = (fixture.consumerPool, fixture.applied, fixture.client)
        let producer = fixture.producer
        let source = TestDatabase.uniqueName("source")
        let consumer = try EventConsumer(source: source, schema: "testsvc", pool: consumerPool, client: client,
                                         credential: Self.consumerCredential) { event, connection in
            _ = try await connection.execute("INSERT INTO testsvc.\(applied) (event_id, cursor) VALUES ($1, $2)",
                                             [.text(event.id), .int64(event.cursor)])
        }
        func appliedCursors() async throws -> [Int64] {
            try await consumerPool.withConnection { connection in
                try await connection.query("SELECT cursor FROM testsvc.\(applied) ORDER BY cursor").map { try $0.decode(0) }
            }
        }
        func waitForApplied(_ expected: [Int64]) async throws -> [Int64] {
            let deadline = ContinuousClock.now + .seconds(20)
            var cursors = try await appliedCursors()
            while cursors.count < expected.count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                cursors = try await appliedCursors()
            }
            return cursors
        }

        var cursors = try await producer.append(5)
        let running = Task { await consumer.run() }
        #expect(try await waitForApplied(cursors) == cursors)
        // The last three applications and the cursor they stored are lost together; the stream
        // stays open.
        try await consumerPool.withTransaction { connection in
            _ = try await connection.execute("DELETE FROM testsvc.\(applied) WHERE cursor > $1", [.int64(cursors[1])])
            _ = try await connection.execute("UPDATE testsvc.event_cursors SET cursor = $2 WHERE source = $1",
                                             [.text(source), .int64(cursors[1])])
        }
        cursors += try await producer.append(3)
        let after = try await waitForApplied(cursors)
        running.cancel()
        await running.value
        await producer.stop()
        #expect(after == cursors, "each event applied once, those whose application was lost again")
        #expect(try await consumer.storedCursor() == cursors.last)
    }

    /// Events whose payload does not decode are skipped, logged and counted, not retried
    /// forever: every other event is applied once, in order, and the stored cursor reaches the
    /// last event, with undecodable events together, at a batch's start and at its end.
    @Test func consumer_skipsEventsThatDoNotDecode_andAppliesEveryOtherOnce() async throws {
        let fixture = try await ConsumerFixture.make(applied: "cursor bigint NOT NULL, decoded bigint NOT NULL")
        defer { fixture.close() }
        let (producerPool, consumerPool, outbox, applied, client) = (fixture.producerPool, fixture.consumerPool, fixture.outbox, fixture.applied, fixture.client)
        let producer = fixture.producer
        // A malformed varint, as a payload of bytes that are no message.
        let bad: Set<Int> = [0, 30, 31, 63, 64, 119]
        var cursors: [Int64] = []
        for index in 0..<120 {
            let payload = bad.contains(index) ? [UInt8](repeating: 0xAB, count: 140)
                : Events.WatchEventsRequest(afterCursor: Int64(index)).serializedBytes()
            cursors.append(try await producerPool.withTransaction { connection in
                try await outbox.append(OutboxEvent(type: "Thing", app: "swivo", aggregateID: "a", payload: payload), on: connection)
            })
        }
        let consumer = try EventConsumer(source: TestDatabase.uniqueName("source"), schema: "testsvc", pool: consumerPool,
                                         client: client, credential: Self.consumerCredential, batchLimit: 32) { event, connection in
            let decoded = try Events.WatchEventsRequest(serializedBytes: event.payload)
            _ = try await connection.execute("INSERT INTO testsvc.\(applied) (cursor, decoded) VALUES ($1, $2)",
                                             [.int64(event.cursor), .int64(decoded.afterCursor)])
        }
        try await Self.run(consumer, untilItStores: cursors.last!)
        await producer.stop()

        let rows = try await consumerPool.withConnection { connection in
            try await connection.query("SELECT cursor, decoded FROM testsvc.\(applied) ORDER BY cursor")
        }
        let good = (0..<120).filter { !bad.contains($0) }
        #expect(try rows.map { try $0.decode(0, as: Int64.self) } == good.map { cursors[$0] })
        #expect(try rows.map { try $0.decode(1, as: Int64.self) } == good.map(Int64.init))
        #expect(try await consumer.storedCursor() == cursors.last)
        #expect(consumer.undecodable.count == bad.count)
    }

    /// A consumer catching up on a backlog applies what the stream has delivered in batches,
    /// still exactly once and in order; an event whose apply fails rolls back its whole batch,
    /// which is applied again after the retry, and nothing is applied twice.
    @Test func consumer_appliesABacklogInBatches_andRetriesAFailedBatchWhole() async throws {
        let fixture = try await ConsumerFixture.make(
            applied: "event_id text NOT NULL, cursor bigint NOT NULL, transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id()")
        defer { fixture.close() }
        let (consumerPool, applied, client) = (fixture.consumerPool, fixture.applied, fixture.client)
        let producer = fixture.producer
        let cursors = try await producer.append(300)
        let failing = cursors[150]
        let failed = Mutex(false)
        let consumer = try EventConsumer(source: TestDatabase.uniqueName("source"), schema: "testsvc", pool: consumerPool,
                                         client: client, credential: Self.consumerCredential, batchLimit: 64) { event, connection in
            _ = try await connection.execute("INSERT INTO testsvc.\(applied) (event_id, cursor) VALUES ($1, $2)",
                                             [.text(event.id), .int64(event.cursor)])
            let failNow = failed.withLock { failed in
                defer { if event.cursor == failing { failed = true } }
                return event.cursor == failing && !failed
            }
            if failNow { throw RPCError(code: .unavailable, message: "a transient failure while applying") }
        }
        try await Self.run(consumer, untilItStores: cursors.last!)
        await producer.stop()

        let rows = try await consumerPool.withConnection { connection in
            try await connection.query("SELECT cursor, transaction_id::text FROM testsvc.\(applied) ORDER BY cursor")
        }
        let appliedCursors = try rows.map { try $0.decode(0, as: Int64.self) }
        let transactions = Set(try rows.map { try $0.decode(1, as: String.self) })
        #expect(failed.withLock { $0 }, "the failing event was reached")
        #expect(appliedCursors == cursors, "each event applied once, in order, the failed batch included")
        #expect(try await consumer.storedCursor() == cursors.last)
        #expect(transactions.count < cursors.count, "\(transactions.count) transactions for \(cursors.count) events")
    }
}
