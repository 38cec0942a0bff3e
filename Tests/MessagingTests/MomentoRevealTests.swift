import Contracts
import Foundation
@testable import Messaging
import Postgres
import Testing
import TestSupport

/// Media's EventRevealed as messaging applies it (followed when RV_MEDIA_ADDRESS is set),
/// against the real schema: each member of the Momento event sees the reveal on their realtime
/// stream once, and the push comes from media's event alone, not again from the stream's copy.
@Suite struct MomentoRevealTests {
    @Test func aReveal_reachesEachMembersRealtimeStreamOnce_andIsPushedOnce() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "messaging"))
        defer { pool.close() }
        _ = try await Migrator(schema: "messaging", migrations: try MessagingMigrations.all()).migrate(pool)
        let feed = RealtimeFeed(outbox: try RealtimeFeed.outbox())
        let members = [UUID(), UUID()]
        let outsider = UUID()
        let eventID = UUID().uuidString.lowercased()
        var revealed = Momento.EventRevealed()
        revealed.eventID = eventID
        revealed.app = "momento"
        revealed.title = "Lena's birthday"
        // A member listed twice and an id that is not one: each member once, nothing else.
        revealed.memberIDs = members.map { $0.uuidString.lowercased() } + [members[0].uuidString.lowercased(), "not-an-id"]
        var event = Events.Event()
        event.cursor = Int64.random(in: 1...Int64.max / 2)
        event.type = "EventRevealed"
        event.app = "momento"
        event.payload = revealed.serializedBytes()
        event.occurredAt = Timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
        try await pool.withTransaction { try await ConversationEvents(feed: feed).apply(event, on: $0) }

        let streamed = try await pool.withConnection { connection in
            var streamed: [UUID: [Realtime.RealtimeEvent]] = [:]
            for account in members + [outsider] {
                streamed[account] = try await feed.events(for: account, after: 0, through: Int64.max, limit: 10, on: connection).events
            }
            return streamed
        }
        for member in members {
            let events = try #require(streamed[member])
            #expect(events.count == 1)
            guard case .photosRevealed(let shown)? = events.first?.event else {
                Issue.record("member \(member) saw \(events) instead of the reveal")
                continue
            }
            #expect(shown.eventID == eventID && shown.eventName == "Lena's birthday")
        }
        #expect(streamed[outsider]?.isEmpty == true)

        // The realtime copy plans no push: media's EventRevealed already did (PushPlannerTests).
        let realtimeRows = try await pool.withConnection { connection in
            try await connection.query("SELECT cursor, type, app, aggregate_id, payload FROM messaging.realtime WHERE aggregate_id = $1",
                                       [.text(members[0].uuidString.lowercased())])
        }
        #expect(!PushPlanner.realtimeTypes.contains("PhotosRevealed"))
        for row in realtimeRows {
            var copy = Events.Event()
            copy.cursor = try row.decode(0)
            copy.type = try row.decode(1)
            copy.app = try row.decode(2)
            copy.aggregateID = try row.decode(3)
            copy.payload = try row.decode(4)
            copy.occurredAt = event.occurredAt
            try await pool.withTransaction { try await PushPlanner(maximumAge: .seconds(600)).apply(copy, source: "realtime-test", on: $0) }
        }
        let jobs = try await pool.withConnection { connection in
            try await connection.query("SELECT count(*) FROM messaging.push_jobs WHERE reference = $1", [.text(eventID)])[0]
                .decode(0, as: Int.self)
        }
        #expect(jobs == 0)
    }
}
