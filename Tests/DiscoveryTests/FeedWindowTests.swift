import Contracts
import Foundation
import Postgres
import RPC
import TestSupport
import Testing
@testable import Discovery

/// A viewer's feed window is kept between pages (`FeedWindowCache`); whatever would change it
/// shows on the very next first page, read right after the change with no wait.
@Suite(.serialized, .discoveryServices) struct FeedWindowTests {
    @Test func nextFirstPage_reflectsSwipesBlocksReportsLikesAndNewcomers() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = FeedTests.spot()
        let near = (here.0 + 0.01, here.1 + 0.01)
        let viewer = try await members.join("swivo", tags: ["jazz"], location: here)
        let swiped = try await members.join("swivo", location: near)
        let blocker = try await members.join("swivo", location: near)
        let reported = try await members.join("swivo", location: near)
        let admirer = try await members.join("swivo", location: near)
        let tagged = try await members.join("swivo", location: near)
        func ids() async throws -> [String] { try await members.feed(of: viewer).map(\.accountID) }
        #expect(try await Set(ids()) == Set([swiped, blocker, reported, admirer, tagged].map(\.id)))
        #expect(try await ids() == ids(), "two first pages in a row differ")

        _ = try await members.swipe(viewer, .pass, on: swiped)
        #expect(try await !ids().contains(swiped.id))

        _ = try await members.safety.block(.init(accountID: viewer.id), options: blocker.bearer)
        try await members.waitForDiscoveryToCatchUp()
        #expect(try await !ids().contains(blocker.id))

        _ = try await members.safety.report(.init(accountID: reported.id, reason: .spam), options: viewer.bearer)
        try await members.waitForDiscoveryToCatchUp()
        #expect(try await !ids().contains(reported.id))

        // A like of the viewer ranks its maker first (150).
        _ = try await members.swipe(admirer, .like, on: viewer)
        #expect(try await ids().first == admirer.id)

        // A profile change (a shared tag: 100) and a newcomer.
        try await members.retag(tagged, ["jazz"])
        let newcomer = try await members.join("swivo", location: near)
        // Cards kept with the window are read again too: the changed one shows its new tag.
        let cards = try await members.feed(of: viewer)
        #expect(cards.map(\.accountID) == [admirer.id, tagged.id, newcomer.id])
        #expect(cards.first { $0.accountID == tagged.id }?.sharedTags == ["jazz"])
    }

    /// A database where migration 20 left the index out (btree_gist was missing when it ran):
    /// discovery still starts, and says at start what is missing; with the index it says nothing.
    @Test func aMissingAppLocationIndex_isReportedAtStart() async throws {
        let warning = "(profiles_by_app_location) is missing"
        let admin = try await TestDatabase.makePool(TestDatabase.configuration(role: "admin", poolSize: 1))
        defer { admin.close() }
        let withIndex = try await DiscoveryStack.start()
        let quietLog = withIndex.discovery.log
        await withIndex.stop()
        #expect(!quietLog.contains(warning), "\(quietLog)")

        try await admin.withConnection { try await $0.executeScript("DROP INDEX discovery.profiles_by_app_location") }
        let outcome: Result<String, any Error>
        do {
            let withoutIndex = try await DiscoveryStack.start()
            outcome = .success(withoutIndex.discovery.log)
            await withoutIndex.stop()
        } catch {
            outcome = .failure(error)
        }
        // Back as the migration makes it (the test database has btree_gist).
        try await admin.withConnection { try await $0.executeScript(DiscoveryMigrations.appLocationIndex.sql) }
        let log = try outcome.get()
        #expect(log.contains(warning), "\(log)")
    }

    /// Another app crowding the viewer's place costs the window nothing: its nearest-first scan
    /// runs on the index by app and place (migration 20, with provisioning's btree_gist), so it
    /// reads the viewer's app's profiles only, and the feed shows exactly its own app's people.
    @Test func aCrowdedOtherAppInThePlace_isNotReadByTheWindow() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = FeedTests.spot()
        let viewer = try await members.join("swivo", location: here)
        let own = try await members.join("swivo", location: (here.0 + 0.02, here.1))
        // 2,000 profiles of another app nearer to the viewer than its one neighbour.
        try await members.admin.withConnection { connection in
            try await connection.execute("""
                INSERT INTO discovery.profiles (account_id, app, active, public_name, gender, birth_date, location, tier,
                                                last_active_at, listed_at)
                SELECT gen_random_uuid(), 'elite', true, 'crowd', 1, date '1990-01-01',
                       ST_SetSRID(ST_MakePoint($2 + i * 0.000001, $1), 4326)::geography, 'free', now(), now() - interval '1 day'
                FROM generate_series(1, 2000) i
                """, [.double(here.0), .double(here.1)])
            try await connection.executeScript("ANALYZE discovery.profiles")
        }
        #expect(try await members.feed(of: viewer).map(\.accountID) == [own.id])
        // The window's nearest-first scan. With few profiles of the viewer's app (a fresh test
        // database), the planner may rather read the whole app and sort it; without sorting it
        // must scan an index in distance order, and the question is which one.
        let plan = try await members.admin.withConnection { connection in
            try await connection.executeScript("BEGIN; SET LOCAL enable_sort = off")
            let plan = try await connection.query("""
                EXPLAIN (ANALYZE, FORMAT JSON) SELECT account_id FROM discovery.profiles p
                WHERE p.app = 'swivo' AND p.active AND p.location IS NOT NULL
                ORDER BY p.location <-> ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography LIMIT 50
                """, [.double(here.0), .double(here.1)])[0].decode(0, as: String.self)
            try await connection.executeScript("ROLLBACK")
            return plan
        }
        // The plan's scan node: which index, and how many rows it read only to drop them.
        func scan(_ node: [String: Any]) -> [String: Any]? {
            if node["Index Name"] != nil { return node }
            return (node["Plans"] as? [[String: Any]])?.lazy.compactMap(scan).first
        }
        let root = try #require((JSONSerialization.jsonObject(with: Data(plan.utf8)) as? [[String: Any]])?.first?["Plan"] as? [String: Any])
        let node = try #require(scan(root), "\(plan)")
        #expect(node["Index Name"] as? String == "profiles_by_app_location", "\(plan)")
        #expect((node["Rows Removed by Filter"] as? Int ?? 0) < 100, "the scan skipped the other app's profiles one by one: \(plan)")
    }

    /// The pages after the first come from the kept window and still walk everyone once.
    @Test func pages_walkTheWindowOnce() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = FeedTests.spot()
        let viewer = try await members.join("swivo", location: here)
        var people: [String] = []
        for index in 0..<5 { people.append(try await members.join("swivo", location: (here.0 + 0.01 * Double(index), here.1)).id) }
        let all = try await members.feed(of: viewer).map(\.accountID)
        let paged = try await members.feed(of: viewer, pageSize: 2).map(\.accountID)
        #expect(paged == all)
        #expect(Set(all) == Set(people))
    }

    /// The viewer's own swipes keep their window (`FeedWindowCache.Window.without`): after
    /// each round of passes, every page is what a window read afresh gives (the next read, once
    /// the app's version has moved), the people passed are gone and the next nearest move up from
    /// the window's tail, and past the end of the tail as well.
    @Test func ownSwipes_leaveThePagesAsAFreshReadGivesThem() async throws {
        let members = try await DiscoveryMembers.make()
        defer { members.close() }
        let here = FeedTests.spot()
        let viewer = try await members.join("swivo", location: here)
        // More people than the window and its tail, about 44 m apart going north.
        let people = (0..<(FeedStore.window + FeedStore.windowTail + 30)).map { _ in UUID() }
        try await members.admin.withConnection { connection in
            _ = try await connection.execute("""
                INSERT INTO discovery.profiles (account_id, app, active, public_name, gender, birth_date, location,
                                                tier, last_active_at, listed_at)
                SELECT person, 'swivo', true, 'window ' || n, 1, (now() - interval '30 years')::date,
                       ST_SetSRID(ST_MakePoint($3::float8, $2::float8 + n * 0.0004), 4326)::geography,
                       'free', now(), now() - interval '1 day'
                FROM unnest($1::uuid[]) WITH ORDINALITY AS p(person, n)
                """, [.uuidArray(people), .double(here.0), .double(here.1)])
        }
        func pages() async throws -> [String] { try await members.feed(of: viewer, pageSize: 100).map(\.accountID) }
        var kept = try await pages()
        #expect(kept.count == FeedStore.window)
        var passed: Set<String> = []
        // 6 rounds of 25: the tail runs out in the fifth.
        for _ in 0..<6 {
            for id in kept.prefix(25) {
                _ = try await members.discovery.swipe(.init(accountID: id, action: .pass), options: viewer.bearer)
                passed.insert(id)
            }
            kept = try await pages()
            try await members.admin.withConnection { connection in
                _ = try await connection.execute("UPDATE discovery.feed_app_versions SET version = version + 1 WHERE app = 'swivo'")
            }
            let fresh = try await pages()
            #expect(kept == fresh)
            #expect(kept.count == min(FeedStore.window, people.count - passed.count))
            #expect(passed.isDisjoint(with: kept))
        }
        // Far from everyone else's spot, but not left behind.
        try await members.admin.withConnection { connection in
            _ = try await connection.execute("DELETE FROM discovery.profiles WHERE account_id = ANY($1::uuid[])",
                                             [.uuidArray(people)])
        }
    }
}
