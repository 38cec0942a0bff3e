import Contracts
import CryptoCore
import Foundation
@testable import Messaging
import Postgres
import Testing
import TestSupport

/// Planning against the real schema, without the network: production's application updates
/// (followed only when RV_PRODUCTION_ADDRESS is set) and events too old to push.
@Suite struct PushPlannerTests {
    @Test func anApplicationStatusChange_isPlannedForTheApplicant_once() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "messaging"))
        defer { pool.close() }
        _ = try await Migrator(schema: "messaging", migrations: try MessagingMigrations.all()).migrate(pool)
        let applicant = UUID()
        let applicationID = UUID().uuidString.lowercased()
        var changed = Production.ApplicationStatusChanged()
        changed.applicationID = applicationID
        changed.app = "firstdate"
        changed.accountID = applicant.uuidString.lowercased()
        var event = Events.Event()
        event.cursor = Int64.random(in: 1...Int64.max / 2)
        event.type = "ApplicationStatusChanged"
        event.app = "firstdate"
        event.payload = changed.serializedBytes()
        event.occurredAt = Timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
        let planner = PushPlanner(maximumAge: .seconds(600))
        for _ in 0..<2 {
            try await pool.withTransaction { try await planner.apply(event, source: "production-test", on: $0) }
        }
        var stale = event
        stale.cursor += 1
        stale.occurredAt = Timestamp(microseconds: Int64(Date().timeIntervalSince1970 - 3_600) * 1_000_000)
        try await pool.withTransaction { try await planner.apply(stale, source: "production-test", on: $0) }

        let rows = try await pool.withConnection { connection in
            try await connection.query("""
                SELECT category, reference, payload, collapse_id FROM messaging.push_jobs WHERE account_id = $1
                """, [.uuid(applicant)])
        }
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(try row.decode(0, as: Int16.self) == NotificationCategory.applicationUpdate.rawValue)
        #expect(try row.decode(1, as: String.self) == applicationID)
        #expect(try row.decode(3, as: String?.self) == "application-\(applicationID)")
        let payload = try JSONValue.parseObject(try row.decode(2, as: [UInt8].self))
        #expect(payload["deep_link"]?.stringValue == "firstdate://application/\(applicationID)")
        _ = try await pool.withConnection { connection in
            try await connection.execute("DELETE FROM messaging.push_jobs WHERE account_id = $1", [.uuid(applicant)])
        }
    }

    /// After a point-in-time restore to T (`db.sh restore` calls `messaging.restored_to(T)`):
    /// the jobs pending at T are finished unsent, an event that occurred before T plans none,
    /// and one after T is pushed as ever.
    @Test func aRestoresTarget_endsThePushesPendingThen_andPlansNoneForEarlierEvents() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "messaging"))
        defer { pool.close() }
        _ = try await Migrator(schema: "messaging", migrations: try MessagingMigrations.all()).migrate(pool)
        let applicant = UUID()
        func changed(_ seconds: Double, cursor: Int64) -> Events.Event {
            var changed = Production.ApplicationStatusChanged()
            changed.applicationID = UUID().uuidString.lowercased()
            changed.app = "firstdate"
            changed.accountID = applicant.uuidString.lowercased()
            var event = Events.Event()
            event.cursor = cursor
            event.type = "ApplicationStatusChanged"
            event.app = "firstdate"
            event.payload = changed.serializedBytes()
            event.occurredAt = Timestamp(microseconds: Int64((Date().timeIntervalSince1970 + seconds) * 1_000_000))
            return event
        }
        func jobs() async throws -> (pending: Int64, done: Int64) {
            try await pool.withConnection { connection in
                let row = try await connection.query("""
                    SELECT count(*) FILTER (WHERE done_at IS NULL), count(*) FILTER (WHERE done_at IS NOT NULL)
                    FROM messaging.push_jobs WHERE account_id = $1
                    """, [.uuid(applicant)])[0]
                return (try row.decode(0), try row.decode(1))
            }
        }
        // The horizon must not outlive the test: a push test after it would plan nothing.
        func cleanUp() async throws {
            try await pool.withConnection { connection in
                _ = try await connection.execute("DELETE FROM messaging.push_horizon")
                _ = try await connection.execute("DELETE FROM messaging.push_jobs WHERE account_id = $1", [.uuid(applicant)])
            }
        }
        let cursor = Int64.random(in: 1...Int64.max / 2)
        do {
            try await pool.withTransaction {
                try await PushPlanner(maximumAge: .seconds(600)).apply(changed(-60, cursor: cursor), source: "production-test", on: $0)
            }
            #expect(try await jobs() == (pending: 1, done: 0))
            _ = try await pool.withConnection { connection in
                try await connection.execute("SELECT messaging.restored_to(now())")
            }
            #expect(try await jobs() == (pending: 0, done: 1), "the job pending at T is finished unsent")

            let restarted = PushPlanner(maximumAge: .seconds(600))
            try await pool.withTransaction {
                try await restarted.apply(changed(-30, cursor: cursor + 1), source: "production-test", on: $0)
            }
            #expect(try await jobs() == (pending: 0, done: 1), "an event from before T plans no push")
            try await pool.withTransaction {
                try await restarted.apply(changed(0.5, cursor: cursor + 2), source: "production-test", on: $0)
            }
            #expect(try await jobs() == (pending: 1, done: 1), "an event after T is pushed")
        } catch {
            try await cleanUp()
            throw error
        }
        try await cleanUp()
    }

    @Test func aMomentoReveal_isPlannedForEachMember_withTheGalleryLink() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "messaging"))
        defer { pool.close() }
        _ = try await Migrator(schema: "messaging", migrations: try MessagingMigrations.all()).migrate(pool)
        let members = [UUID(), UUID()]
        let muted = UUID()
        try await pool.withTransaction { connection in
            try await PushPreferencesStore.set(muted, categories: [.photosRevealed: false], quietHours: nil, on: connection)
        }
        let eventID = UUID().uuidString.lowercased()
        var revealed = Momento.EventRevealed()
        revealed.eventID = eventID
        revealed.app = "momento"
        revealed.title = "Lena's birthday"
        revealed.memberIDs = (members + [muted]).map { $0.uuidString.lowercased() }
        revealed.galleryLink = "momento://event/\(eventID)/gallery"
        var event = Events.Event()
        event.cursor = Int64.random(in: 1...Int64.max / 2)
        event.type = "EventRevealed"
        event.app = "momento"
        event.payload = revealed.serializedBytes()
        event.occurredAt = Timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
        try await pool.withTransaction { try await PushPlanner(maximumAge: .seconds(600)).apply(event, source: "media-test", on: $0) }

        let rows = try await pool.withConnection { connection in
            try await connection.query("""
                SELECT account_id, category, payload FROM messaging.push_jobs WHERE reference = $1
                """, [.text(eventID)])
        }
        #expect(Set(try rows.map { try $0.decode(0, as: UUID.self) }) == Set(members))
        for row in rows {
            #expect(try row.decode(1, as: Int16.self) == NotificationCategory.photosRevealed.rawValue)
            let payload = try JSONValue.parseObject(try row.decode(2, as: [UInt8].self))
            #expect(payload["deep_link"]?.stringValue == "momento://event/\(eventID)/gallery")
            #expect(payload["aps"]?.objectValue?["alert"]?.objectValue?["body"]?.stringValue
                    == "Tap to view photos from Lena's birthday.")
        }
        _ = try await pool.withConnection { connection in
            try await connection.execute("DELETE FROM messaging.push_jobs WHERE reference = $1", [.text(eventID)])
            try await PushPreferencesStore.purge(muted, on: connection)
        }
    }

    /// Episode pushes are off unless turned on: a published episode goes to those who did.
    @Test func aPublishedEpisode_isPlannedForThoseWhoTurnedItOn_only() async throws {
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "messaging"))
        defer { pool.close() }
        _ = try await Migrator(schema: "messaging", migrations: try MessagingMigrations.all()).migrate(pool)
        let fans = [UUID(), UUID()]
        let turnedOff = UUID()
        let neverAsked = UUID()
        try await pool.withTransaction { connection in
            for fan in fans { try await PushPreferencesStore.set(fan, categories: [.episodePublished: true], quietHours: nil, on: connection) }
            try await PushPreferencesStore.set(turnedOff, categories: [.episodePublished: false], quietHours: nil, on: connection)
            try await PushPreferencesStore.set(neverAsked, categories: [.message: true], quietHours: nil, on: connection)
        }
        let episodeID = UUID().uuidString.lowercased()
        var published = Production.EpisodePublished()
        published.episodeID = episodeID
        published.app = "firstdate"
        published.seasonNumber = 2
        published.number = 5
        published.title = "Dinner in Wynwood"
        var event = Events.Event()
        event.cursor = Int64.random(in: 1...Int64.max / 2)
        event.type = "EpisodePublished"
        event.app = "firstdate"
        event.payload = published.serializedBytes()
        event.occurredAt = Timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
        try await pool.withTransaction { try await PushPlanner(maximumAge: .seconds(600)).apply(event, source: "production-test", on: $0) }

        let rows = try await pool.withConnection { connection in
            try await connection.query("SELECT account_id, category, payload FROM messaging.push_jobs WHERE reference = $1",
                                       [.text(episodeID)])
        }
        #expect(Set(try rows.map { try $0.decode(0, as: UUID.self) }) == Set(fans))
        for row in rows {
            #expect(try row.decode(1, as: Int16.self) == NotificationCategory.episodePublished.rawValue)
            let payload = try JSONValue.parseObject(try row.decode(2, as: [UInt8].self))
            #expect(payload["deep_link"]?.stringValue == "firstdate://episode/\(episodeID)")
            #expect(payload["aps"]?.objectValue?["alert"]?.objectValue?["body"]?.stringValue
                    == "Season 2, episode 5: Dinner in Wynwood")
        }
        _ = try await pool.withConnection { connection in
            try await connection.execute("DELETE FROM messaging.push_jobs WHERE reference = $1", [.text(episodeID)])
            for account in fans + [turnedOff, neverAsked] { try await PushPreferencesStore.purge(account, on: connection) }
        }
    }
}
