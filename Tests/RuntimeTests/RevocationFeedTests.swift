import Auth
import Contracts
import CryptoCore
import Foundation
import Logging
import Postgres
import RPC
@testable import Runtime
import Testing
import TestSupport

/// `WatchEvents` from an instant (`occurred_after`) and `RevocationFeed`, which follows only the
/// recent past of identity's revocation events into a `RevocationList`.
@Suite struct RevocationFeedTests {
    typealias Producer = EventsTests.Producer

    /// Moves the events up to `cursor` an hour into the past.
    static func backdate(_ producer: Producer, upTo cursor: Int64) async throws {
        _ = try await producer.pool.withConnection { connection in
            try await connection.execute(
                "UPDATE \(producer.outbox.schema).\(producer.outbox.stream) SET occurred_at = now() - interval '1 hour' WHERE cursor <= $1",
                [.int64(cursor)])
        }
    }

    static func watch(_ producer: Producer, _ request: Events.WatchEventsRequest, count: Int) async throws -> [Int64] {
        let client = RPCClient(host: "127.0.0.1", port: producer.server.port)
        defer { client.close() }
        let stream = try await client.serverStreaming(path: "/\(EventStreamClient.serviceName)/WatchEvents",
                                                      request: request, as: Events.Event.self, options: EventsTests.watch)
        var cursors: [Int64] = []
        for try await event in stream {
            cursors.append(event.cursor)
            if cursors.count == count { break }
        }
        return cursors
    }

    static func minutesAgo(_ minutes: Double) -> Timestamp {
        Timestamp(microseconds: Int64((Date().timeIntervalSince1970 - minutes * 60) * 1_000_000))
    }

    @Test func watchEvents_occurredAfter_skipsOlderHistory_andAfterCursorStillBoundsIt() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let producer = try await Producer(outbox: try await EventsTests.makeOutbox(pool: pool), pool: pool)
        let old = try await producer.append(3)
        try await Self.backdate(producer, upTo: old[2])
        let recent = try await producer.append(2)
        #expect(try await Self.watch(producer, .init(occurredAfter: Self.minutesAgo(10)), count: 2) == recent)
        // A later after_cursor wins over the instant.
        #expect(try await Self.watch(producer, .init(afterCursor: recent[0], occurredAfter: Self.minutesAgo(10)),
                                     count: 1) == [recent[1]])
        await producer.stop()
    }

    @Test func watchEvents_occurredAfter_withNothingThatRecent_startsLive() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let producer = try await Producer(outbox: try await EventsTests.makeOutbox(pool: pool), pool: pool)
        let old = try await producer.append(2)
        try await Self.backdate(producer, upTo: old[1])
        async let live = Self.watch(producer, .init(occurredAfter: Self.minutesAgo(10)), count: 1)
        try await Task.sleep(for: .milliseconds(200))
        let next = try await producer.append(1)
        #expect(try await live == next)
        await producer.stop()
    }

    static func revoked(_ sessions: [String], validFor seconds: Double) -> OutboxEvent {
        var event = Identity.SessionsRevoked()
        event.sessionIDs = sessions
        event.validUntil = Timestamp(microseconds: Int64((Date().timeIntervalSince1970 + seconds) * 1_000_000))
        return OutboxEvent(type: "SessionsRevoked", app: "swivo", aggregateID: UUID().uuidString, payload: event.serializedBytes())
    }

    static func account(session: String) -> AuthenticatedAccount {
        AuthenticatedAccount(accountID: "a", app: "swivo", role: "", tier: "", membershipStatus: "", sessionID: session)
    }

    @Test func feed_replaysRecentRevocations_followsLiveOnes_andSkipsOtherTypes() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let producer = try await Producer(outbox: try await EventsTests.makeOutbox(pool: pool), pool: pool)
        func append(_ event: OutboxEvent) async throws {
            try await pool.withTransaction { try await producer.outbox.append(event, on: $0) }
        }
        try await append(Self.revoked(["expired"], validFor: -3600))
        try await append(Self.revoked(["recent"], validFor: 900))
        try await producer.append(2, type: "Thing")
        let list = RevocationList()
        let client = RPCClient(host: "127.0.0.1", port: producer.server.port)
        defer { client.close() }
        let feed = RevocationFeed.remote(list: list, client: client, credential: EventsTests.consumerCredential,
                                         logger: Logger(label: "test"))
        let task = Task { await feed.run() }
        defer { task.cancel() }

        func eventually(_ condition: () -> Bool) async throws -> Bool {
            for _ in 0..<100 {
                if condition() { return true }
                try await Task.sleep(for: .milliseconds(10))
            }
            return condition()
        }
        #expect(try await eventually { list.check(Self.account(session: "recent")) == .revoked })
        // An event about tokens that have all expired is not kept.
        #expect(list.check(Self.account(session: "expired")) == .valid)
        #expect(list.count == 1)
        try await append(Self.revoked(["live"], validFor: 900))
        #expect(try await eventually { list.check(Self.account(session: "live")) == .revoked })
        #expect(list.count == 2)
        task.cancel()
        await producer.stop()
    }

    /// What every service gets in one place: `ServiceContext.followRevocations` registers the feed
    /// as a background job and a gauge, and `makeAuthInterceptor` checks the same list.
    @Test func serviceContext_followRevocations_feedsTheListItsAuthInterceptorChecks() async throws {
        let pool = try await TestDatabase.makePool()
        defer { pool.close() }
        let producer = try await Producer(outbox: try await EventsTests.makeOutbox(pool: pool), pool: pool)
        let configuration = try ServiceConfiguration.load(name: "discovery", defaultPort: 0, environment: Environment(),
                                                          arguments: [])
        let context = ServiceContext(configuration: configuration, logger: Logger(label: "test"), metrics: RuntimeMetrics(),
                                     readiness: Readiness())
        let client = RPCClient(host: "127.0.0.1", port: producer.server.port)
        defer { client.close() }
        context.followRevocations(identity: client, credential: EventsTests.consumerCredential)
        let jobs = context.jobs
        #expect(jobs.map(\.name) == ["revocation feed"])
        let feed = Task { try await jobs[0].job() }
        defer { feed.cancel() }
        try await pool.withTransaction { try await producer.outbox.append(Self.revoked(["s-1"], validFor: 900), on: $0) }

        let verifier = AccessTokenVerifier(configuration: .init(apps: ["swivo"]), source: NoKeys())
        let interceptor = context.makeAuthInterceptor(verifier: verifier, publicMethods: [])
        var revoked = false
        for _ in 0..<100 where !revoked {
            revoked = interceptor.revocations?.check(Self.account(session: "s-1")) == .revoked
            if !revoked { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(revoked)
        #expect(context.revocations.count == 1)
        feed.cancel()
        await producer.stop()
    }
}

private struct NoKeys: SigningKeySource {
    func fetchKeys() async throws -> (keys: JWKSet, maxAge: Duration) { throw CancellationError() }
}
