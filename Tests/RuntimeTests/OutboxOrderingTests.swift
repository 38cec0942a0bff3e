import Contracts
import Foundation
import Postgres
import RPC
import Runtime
import Testing
import TestSupport

/// What the outbox promises without a lock between writers: a reader resuming from its cursor
/// never skips an event that commits later, sees each event once in one stable order, and
/// event-writing transactions do not wait for one another.
///
/// Any transaction open in the cluster holds delivery back until it ends (see `Outbox`), so
/// reads that expect events wait until they arrive (`read(count:)`); serialized, so the suite's
/// own open transactions do not hold back each other's.
@Suite(.serialized) struct OutboxOrderingTests {
    /// A transaction held open on a connection of its own until `finish` is called.
    final class OpenTransaction: Sendable {
        private let commands: AsyncStream<Bool>.Continuation
        private let task: Task<Void, any Error>

        /// Begins, runs `body`, and waits for `finish(commit:)`; throws what the body threw.
        init(pool: PostgresPool, _ body: @escaping @Sendable (Connection) async throws -> Void) async throws {
            let (commands, continuation) = AsyncStream.makeStream(of: Bool.self)
            let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
            self.commands = continuation
            task = Task {
                defer { startedContinuation.finish() }
                try await pool.withConnection { connection in
                    _ = try await connection.execute("BEGIN")
                    do {
                        try await body(connection)
                        startedContinuation.yield()
                        var commit = false
                        for await command in commands {
                            commit = command
                            break
                        }
                        _ = try await connection.execute(commit ? "COMMIT" : "ROLLBACK")
                    } catch {
                        _ = try? await connection.execute("ROLLBACK")
                        throw error
                    }
                }
            }
            for await _ in started { return }
            try await task.value
        }

        func finish(commit: Bool) async throws {
            commands.yield(commit)
            try await task.value
        }
    }

    static func makeOutbox(_ pool: PostgresPool) async throws -> Outbox {
        let outbox = try Outbox(schema: "testsvc", stream: TestDatabase.uniqueName("outbox"))
        try await pool.withConnection { try await $0.executeScript(outbox.ddl) }
        return outbox
    }

    static func event(_ name: String) -> OutboxEvent {
        OutboxEvent(type: "Thing", app: "swivo", aggregateID: name, payload: Array(name.utf8))
    }

    static func wanted(_ name: String) -> OutboxEvent {
        OutboxEvent(type: "Wanted", app: "swivo", aggregateID: name, payload: [])
    }

    static func committed(_ name: String, _ outbox: Outbox, _ pool: PostgresPool) async throws -> Int64 {
        try await pool.withTransaction { try await outbox.append(event(name), on: $0) }
    }

    static func read(_ outbox: Outbox, _ pool: PostgresPool, after cursor: Int64 = 0) async throws -> [String] {
        try await pool.withConnection { connection in
            try await outbox.events(after: cursor, types: [], limit: 100, on: connection).events.map(\.aggregateID)
        }
    }

    /// What a reader gets once `count` events are readable (or after 5 s, whatever it has). An
    /// event is readable once every transaction of the cluster older than its own has ended,
    /// and another test process may have one open.
    static func read(count: Int, _ outbox: Outbox, _ pool: PostgresPool, after cursor: Int64 = 0) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            let names = try await read(outbox, pool, after: cursor)
            if names.count >= count || ContinuousClock.now > deadline { return names }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func aWriterHeldOpen_holdsBackLaterCommits_untilItCommits_thenAllArriveInOrderOnce() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 6))
        defer { pool.close() }
        let outbox = try await Self.makeOutbox(pool)
        let early = try await Self.committed("early", outbox, pool)
        let a = try await OpenTransaction(pool: pool) { try await outbox.append(Self.event("a"), on: $0) }
        let b = try await Self.committed("b", outbox, pool)
        let c = try await Self.committed("c", outbox, pool)
        #expect(early < b && b < c)

        // b and c are committed, but a, with a smaller position, may still commit: a reader that
        // got b now and resumed after it would never see a. (Early is readable once no older
        // transaction of the cluster is open: another test process's may be, for a moment.)
        #expect(try await Self.read(count: 1, outbox, pool) == ["early"])
        #expect(try await pool.withConnection { try await outbox.hasHeldBack(after: early, on: $0) })

        try await a.finish(commit: true)
        #expect(try await Self.read(count: 4, outbox, pool) == ["early", "a", "b", "c"])
        // Resuming from any cursor gives the rest of the same order.
        let cursors = try await pool.withConnection { try await outbox.events(after: 0, types: [], limit: 10, on: $0).events.map(\.cursor) }
        #expect(cursors == cursors.sorted() && Set(cursors).count == 4)
        for (index, cursor) in cursors.enumerated() {
            #expect(try await Self.read(count: 3 - index, outbox, pool, after: cursor) == Array(["early", "a", "b", "c"].dropFirst(index + 1)))
        }
        #expect(try await pool.withConnection { try await outbox.hasHeldBack(after: cursors.last ?? 0, on: $0) } == false)
    }

    /// A reader of some types only continues past the other types' events (a revocation feed
    /// among thousands of profile updates reads each once, not at every wake-up), and still never
    /// past an event of its types that a transaction held open may commit later.
    @Test func aFilteredRead_continuesPastOtherTypes_butNeverPastAWriterHeldOpen() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 6))
        defer { pool.close() }
        let outbox = try await Self.makeOutbox(pool)
        let wanted = ["Wanted"]
        var others: [Int64] = []
        for index in 0..<5 { others.append(try await Self.committed("other \(index)", outbox, pool)) }

        // Once the horizon passes them (at once, unless another transaction of the cluster is
        // open), an empty read of the wanted type reads through the others.
        let deadline = ContinuousClock.now + .seconds(5)
        var batch = try await pool.withConnection { try await outbox.events(after: 0, types: wanted, limit: 10, on: $0) }
        while batch.readThrough < others[4] && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
            batch = try await pool.withConnection { try await outbox.events(after: 0, types: wanted, limit: 10, on: $0) }
        }
        #expect(batch.events.isEmpty)
        #expect(batch.readThrough >= others[4])

        let held = try await OpenTransaction(pool: pool) { try await outbox.append(Self.wanted("held"), on: $0) }
        let later = try await pool.withTransaction { try await outbox.append(Self.wanted("later"), on: $0) }
        _ = try await Self.committed("other after", outbox, pool)
        let whileHeld = try await pool.withConnection {
            try await outbox.events(after: batch.readThrough, types: wanted, limit: 10, on: $0)
        }
        #expect(whileHeld.events.isEmpty, "the later event waits behind the held one")
        #expect(whileHeld.readThrough < later)
        #expect(try await pool.withConnection { try await outbox.hasHeldBack(after: whileHeld.readThrough, types: wanted, on: $0) })

        try await held.finish(commit: true)
        var names: [String] = []
        var cursor = whileHeld.readThrough
        let until = ContinuousClock.now + .seconds(5)
        while names.count < 2 && ContinuousClock.now < until {
            let next = try await pool.withConnection { try await outbox.events(after: cursor, types: wanted, limit: 10, on: $0) }
            names += next.events.map(\.aggregateID)
            #expect(next.readThrough >= cursor)
            cursor = next.readThrough
            if names.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(names == ["held", "later"])
    }

    /// A full batch reads through its last event only: what lies after it is not read yet.
    @Test func aFullBatch_readsThroughItsLastEventOnly() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let outbox = try await Self.makeOutbox(pool)
        for index in 0..<3 { _ = try await Self.committed("e\(index)", outbox, pool) }
        _ = try await Self.read(count: 3, outbox, pool)
        let batch = try await pool.withConnection { try await outbox.events(after: 0, types: [], limit: 2, on: $0) }
        #expect(batch.events.map(\.aggregateID) == ["e0", "e1"])
        #expect(batch.readThrough == batch.events[1].cursor)
    }

    /// Events sent with the COMMIT follow the transaction's events appended at once, in the
    /// order of their calls, and never arrive for a transaction that rolled back.
    @Test func eventsAppendedAtCommit_followTheImmediateOnes_inCallOrder_andRollBackWithTheirTransaction() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let outbox = try await Self.makeOutbox(pool)
        try await pool.withTransaction { connection in
            try await outbox.appendAtCommit(Self.event("second"), on: connection)
            try await outbox.append(Self.event("first"), on: connection)
            try await outbox.appendAtCommit(Self.event("ignored"), forEach: ["third", "fourth"], on: connection)
        }
        struct Boom: Error {}
        await #expect(throws: Boom.self) {
            try await pool.withTransaction { connection in
                try await outbox.appendAtCommit(Self.event("rolled back"), on: connection)
                throw Boom()
            }
        }
        try await pool.withConnection { try await outbox.appendAtCommit(Self.event("autocommit"), on: $0) }
        #expect(try await Self.read(count: 5, outbox, pool) == ["first", "second", "third", "fourth", "autocommit"])
    }

    /// A transaction past the last rank a cursor can hold fails, rather than dropping events
    /// nobody would miss until a consumer did (an event sent with the COMMIT returns nothing).
    @Test func aTransactionPastTheLastRank_failsWithoutWritingItsEvents() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let outbox = try await Self.makeOutbox(pool)
        await #expect(throws: PostgresError.self) {
            try await pool.withTransaction { connection in
                _ = try await connection.query("SELECT set_config('rendezvous.outbox_rank', $1, true)",
                                               [.text(String((1 << Outbox.rankBits) - 2))])
                try await outbox.appendAtCommit(Self.event("last"), forEach: ["fits", "too many"], on: connection)
            }
        }
        _ = try await Self.committed("after", outbox, pool)
        #expect(try await Self.read(count: 1, outbox, pool) == ["after"])
    }

    @Test func aWriterThatRollsBack_releasesTheEventsBehindIt_andIsNeverSeen() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 6))
        defer { pool.close() }
        let outbox = try await Self.makeOutbox(pool)
        let a = try await OpenTransaction(pool: pool) { try await outbox.append(Self.event("a"), on: $0) }
        _ = try await Self.committed("b", outbox, pool)
        #expect(try await Self.read(outbox, pool).isEmpty)
        try await a.finish(commit: false)
        #expect(try await Self.read(count: 1, outbox, pool) == ["b"])
    }

    /// One statement appending a copy per aggregate id (a change both sides of a conversation
    /// hear of) takes its places in the transaction's order like that many single appends: the
    /// copies in the order given, each with an id of its own, between what came before and after.
    @Test func aFanOutAppend_takesItsPlacesInTheTransactionsOrder() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let outbox = try await Self.makeOutbox(pool)
        let cursors = try await pool.withTransaction { connection in
            var cursors = [try await outbox.append(Self.event("before"), on: connection)]
            cursors += try await outbox.append(Self.event("ignored"), forEach: ["ana", "ben", "cat"], on: connection)
            cursors.append(try await outbox.append(Self.event("after"), on: connection))
            #expect(try await outbox.append(Self.event("nobody"), forEach: [], on: connection).isEmpty)
            return cursors
        }
        #expect(cursors == cursors.sorted() && Set(cursors).count == 5)
        #expect(cursors.last! - cursors.first! == 4, "five consecutive ranks of one transaction")
        #expect(try await Self.read(count: 5, outbox, pool) == ["before", "ana", "ben", "cat", "after"])
        let events = try await pool.withConnection { try await outbox.events(after: 0, types: [], limit: 10, on: $0).events }
        #expect(events.map(\.aggregateID) == ["before", "ana", "ben", "cat", "after"])
        #expect(Set(events.map(\.id)).count == 5)
        #expect(events[1...3].allSatisfy { $0.payload == Array("ignored".utf8) && $0.type == "Thing" })
    }

    /// Under the old one-row counter the second append waited for the first transaction's
    /// commit; now it returns while the first is still open.
    @Test func twoEventWritingTransactions_areOpenAtOnce_withoutWaiting() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 6))
        defer { pool.close() }
        let outbox = try await Self.makeOutbox(pool)
        let first = try await OpenTransaction(pool: pool) { try await outbox.append(Self.event("first"), on: $0) }
        let second = try await OpenTransaction(pool: pool) { connection in
            _ = try await connection.execute("SET LOCAL lock_timeout = '1s'")
            try await outbox.append(Self.event("second"), on: connection)
            try await outbox.append(Self.event("third"), on: connection)
        }
        try await second.finish(commit: true)
        try await first.finish(commit: true)
        #expect(try await Self.read(count: 3, outbox, pool) == ["first", "second", "third"])
    }

    /// A watcher sees events held back by a transaction that wrote no event (so its end sends
    /// no notification) as soon as it ends, without waiting for the 5 s poll.
    @Test func watchEvents_deliversHeldBackEvents_soonAfterAnUnrelatedTransactionEnds() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 6))
        defer { pool.close() }
        let producer = try await EventsTests.Producer(outbox: try await Self.makeOutbox(pool), pool: pool)
        let client = RPCClient(host: "127.0.0.1", port: producer.server.port)
        defer { client.close() }
        let unrelated = try await OpenTransaction(pool: pool) { connection in
            _ = try await connection.query("SELECT pg_current_xact_id()")
        }
        _ = try await Self.committed("b", producer.outbox, pool)
        let stream = try await client.serverStreaming(path: "/\(EventStreamClient.serviceName)/WatchEvents",
                                                      request: Events.WatchEventsRequest(afterCursor: 0), as: Events.Event.self,
                                                      options: EventsTests.watch)
        let received = Task {
            var names: [String] = []
            for try await event in stream {
                names.append(event.aggregateID)
                break
            }
            return (names, ContinuousClock.now)
        }
        try await Task.sleep(for: .milliseconds(300))
        // What outbox_held_back_seconds shows meanwhile: the watcher waiting behind the transaction.
        #expect(producer.notifier.holdBack.seconds >= 0.2)
        let ended = ContinuousClock.now
        try await unrelated.finish(commit: true)
        let (names, arrived) = try await received.value
        #expect(names == ["b"])
        #expect(arrived - ended < .seconds(2), "held back for \(arrived - ended) after the transaction ended")
        let deadline = ContinuousClock.now + .seconds(2)
        while producer.notifier.holdBack.seconds > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(producer.notifier.holdBack.seconds == 0, "still reported held back after delivery")
        await producer.stop()
    }

    /// Many writers at once, each appending several events per transaction, while a watcher
    /// follows: every event arrives exactly once, in strictly increasing cursor order.
    @Test func concurrentWriters_whileWatching_deliverEveryEventOnceInCursorOrder() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(poolSize: 10))
        defer { pool.close() }
        let producer = try await EventsTests.Producer(outbox: try await Self.makeOutbox(pool), pool: pool)
        let client = RPCClient(host: "127.0.0.1", port: producer.server.port)
        defer { client.close() }
        let writers = 8, transactions = 10, perTransaction = 3
        let total = writers * transactions * perTransaction
        let stream = try await client.serverStreaming(path: "/\(EventStreamClient.serviceName)/WatchEvents",
                                                      request: Events.WatchEventsRequest(afterCursor: 0), as: Events.Event.self,
                                                      options: EventsTests.watch)
        let watcher = Task {
            var events: [Events.Event] = []
            for try await event in stream {
                events.append(event)
                if events.count == total { break }
            }
            return events
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for transaction in 0..<transactions {
                        try await pool.withTransaction { connection in
                            for index in 0..<perTransaction {
                                try await producer.outbox.append(Self.event("\(writer)-\(transaction)-\(index)"), on: connection)
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let timeout = Task {
            try await Task.sleep(for: .seconds(20))
            stream.cancel()
        }
        let events = try await watcher.value
        timeout.cancel()
        let cursors = events.map(\.cursor)
        #expect(events.count == total)
        #expect(Set(events.map(\.aggregateID)).count == total)
        #expect(zip(cursors, cursors.dropFirst()).allSatisfy { $0 < $1 })
        // Within a transaction the events keep their order.
        let byName = Dictionary(uniqueKeysWithValues: events.map { ($0.aggregateID, $0.cursor) })
        for writer in 0..<writers {
            for transaction in 0..<transactions {
                let ranks = (0..<perTransaction).compactMap { byName["\(writer)-\(transaction)-\($0)"] }
                #expect(ranks == ranks.sorted())
            }
        }
        await producer.stop()
    }
}
