import Contracts
import Foundation
import Postgres
import RPC
import TestSupport
import Testing

/// Dates between matched FirstDate applicants (matches from discovery's events), their reviews,
/// and the content scripts drafted from them (P10, P11).
@Suite(.productionWithDiscovery)
struct DatesAndContentTests {
    /// Two applicants who matched in discovery, and the match as production knows it.
    static func matchedPair(_ people: ProductionPeople) async throws -> (Person, Person, String) {
        let stack = try ProductionHarness.running
        let identityClient = RPCClient(host: "127.0.0.1", port: stack.identity.port)
        let discoveryPort = try #require(stack.discovery?.port)
        let discovery = DiscoveryClient(client: RPCClient(host: "127.0.0.1", port: discoveryPort))
        defer {
            identityClient.close()
            discovery.client.close()
        }
        let profiles = ProfilesClient(client: identityClient)
        var pair: [Person] = []
        for legalName in ["Ana Ruiz", "Ben Cole"] {
            let person = try await people.join()
            var fields = Profiles.ProfileFields()
            fields.displayName = legalName
            fields.bio = "hi"
            fields.active = true
            fields.birthDate = Profiles.CalendarDate(year: 1995, month: 1, day: 1)
            _ = try await profiles.updateProfile(.init(fields: fields, updateMask: ["display_name", "bio", "active", "birth_date"]),
                                                 options: person.bearer)
            pair.append(try await people.apply(person, legalName: legalName).1)
        }
        let (ana, ben) = (pair[0], pair[1])
        try await waitUntil(people.admin, "discovery has both profiles", """
            SELECT count(*) = 2 FROM discovery.profiles WHERE account_id IN ('\(ana.id)', '\(ben.id)') AND active
            """)
        _ = try await discovery.swipe(.init(accountID: ben.id, action: .like), options: ana.bearer)
        let liked = try await discovery.swipe(.init(accountID: ana.id, action: .like), options: ben.bearer)
        let match = try #require(liked.match, "applicants' likes match")
        try await waitUntil(people.admin, "production has the match",
                            "SELECT count(*) = 1 FROM production.matches WHERE id = '\(match.matchID)'")
        return (ana, ben, match.matchID)
    }

    static func waitUntil(_ admin: PostgresPool, _ what: String, _ sql: String) async throws {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if try await admin.withConnection({ try await $0.query(sql)[0].decode(0, as: Bool.self) }) { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw SubprocessError(message: "timed out waiting until \(what)")
    }

    static var tomorrow: Timestamp { Timestamp(microseconds: Int64(Date().timeIntervalSince1970 + 86_400) * 1_000_000) }

    @Test func aMatchedPair_datesAndReviews_andTheHostScriptsIt() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let (ana, ben, matchID) = try await Self.matchedPair(people)
        let stranger = try await people.join()
        let host = try await people.join(as: "host")

        var failure = await reason {
            _ = try await people.dates.proposeDate(.init(matchID: matchID, restaurantID: "hiden", scheduledAt: Self.tomorrow),
                                                   options: stranger.bearer)
        }
        #expect(failure?.reason == "MATCH_NOT_FOUND")
        failure = await reason {
            _ = try await people.dates.proposeDate(.init(matchID: matchID, restaurantID: "hiden",
                                                         scheduledAt: Timestamp(microseconds: 1_000_000)), options: ana.bearer)
        }
        #expect(failure?.code == .invalidArgument)
        // Beyond google.protobuf.Timestamp's range (once an overflow that ended the process).
        for seconds in [Int64.max, Int64.min] {
            failure = await reason {
                _ = try await people.dates.proposeDate(.init(matchID: matchID, restaurantID: "hiden",
                                                             scheduledAt: Timestamp(seconds: seconds)), options: ana.bearer)
            }
            #expect(failure?.code == .invalidArgument)
        }
        let date = try await people.dates.proposeDate(.init(matchID: matchID, restaurantID: "hiden", scheduledAt: Self.tomorrow),
                                                      options: ana.bearer)
        #expect(date.status == .proposed && Set(date.accountIDs) == [ana.id, ben.id])
        failure = await reason { _ = try await people.dates.confirmDate(.init(dateID: date.id), options: ana.bearer) }
        #expect(failure?.code == .failedPrecondition, "the proposer does not confirm their own date")
        #expect(failure?.reason == "CANNOT_CONFIRM_OWN_DATE")
        failure = await reason { _ = try await people.dates.confirmDate(.init(dateID: date.id), options: stranger.bearer) }
        #expect(failure?.reason == "DATE_NOT_FOUND")
        failure = await reason {
            _ = try await people.dates.reviewDate(.init(dateID: date.id, vibeTags: ["early"], wouldMeetAgain: true), options: ben.bearer)
        }
        #expect(failure?.reason == "DATE_STATE")
        #expect(try await people.dates.confirmDate(.init(dateID: date.id), options: ben.bearer).status == .confirmed)
        #expect(try await people.dates.confirmDate(.init(dateID: date.id), options: ben.bearer).status == .confirmed, "a retry")
        #expect(try await people.dates.completeDate(.init(dateID: date.id), options: ana.bearer).status == .completed)
        _ = try await people.dates.reviewDate(.init(dateID: date.id, vibeTags: ["Electric", "funny"], wouldMeetAgain: true),
                                              options: ana.bearer)
        let reviewed = try await people.dates.reviewDate(.init(dateID: date.id, vibeTags: ["electric"], wouldMeetAgain: false,
                                                               note: "great tacos"), options: ben.bearer)
        #expect(reviewed.reviews.count == 2)
        failure = await reason {
            _ = try await people.dates.reviewDate(.init(dateID: date.id, vibeTags: ["again"], wouldMeetAgain: true), options: ben.bearer)
        }
        #expect(failure?.reason == "ALREADY_REVIEWED")
        #expect(try await people.dates.listDates(.init(), options: ben.bearer).dates.map(\.id) == [date.id])
        #expect(try await people.dates.listDates(.init(), options: stranger.bearer).dates.isEmpty)
        #expect(try await people.dates.listDates(.init(matchID: matchID), options: host.bearer).dates.first?.reviews.count == 2)

        // The host casts Ana and drafts the TikTok script from the reviews.
        var episode = try await people.confirmDeal(of: try await people.episode(by: host), by: host)
        episode = try await people.episodes.advanceProduction(.init(episodeID: episode.id, status: .casting), options: host.bearer)
        let application = try await people.casting.getMyApplication(.init(), options: ana.bearer)
        for status in [Production.ApplicationStatus.reviewing, .shortlisted, .selected] {
            _ = try await people.casting.setApplicationStatus(.init(applicationID: application.id, status: status), options: host.bearer)
        }
        _ = try await people.casting.assignToEpisode(.init(applicationID: application.id, episodeID: episode.id), options: host.bearer)
        let script = try await people.content.generateScript(.init(episodeID: episode.id, platform: .tiktok), options: host.bearer)
        #expect(script.hook.contains("electric"))
        #expect(script.payoff == "1 of 2 would meet again.")
        #expect(script.sourceDateIDs == [date.id] && script.generatedBy == "template")
        var edit = Production.ContentScript()
        edit.cta = "Part two drops Friday."
        edit.isFinal = true
        let final = try await people.content.updateScript(.init(episodeID: episode.id, platform: .tiktok, script: edit,
                                                                updateMask: ["cta", "is_final"]), options: host.bearer)
        #expect(final.isFinal && final.cta == "Part two drops Friday." && final.hook == script.hook && final.generatedBy == "manual")
        failure = await reason {
            _ = try await people.content.generateScript(.init(episodeID: episode.id, platform: .tiktok), options: host.bearer)
        }
        #expect(failure?.reason == "SCRIPT_FINAL")
        let youtube = try await people.content.generateScript(.init(episodeID: episode.id, platform: .youtube), options: host.bearer)
        #expect(youtube.hook.hasPrefix("We sent two strangers"))
        #expect(try await people.content.listScripts(.init(episodeID: episode.id), options: host.bearer).scripts.map(\.platform)
                == [.tiktok, .youtube])
        failure = await reason { _ = try await people.content.listScripts(.init(episodeID: episode.id), options: ana.bearer) }
        #expect(failure?.reason == "PRODUCER_ONLY")
    }

    @Test func anUnmatch_cancelsPlannedDates_andTakesNoNewOnes() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let (ana, ben, matchID) = try await Self.matchedPair(people)
        let planned = try await people.dates.proposeDate(.init(matchID: matchID, restaurantID: "amal", scheduledAt: Self.tomorrow),
                                                         options: ben.bearer)
        let stack = try ProductionHarness.running
        let discovery = DiscoveryClient(client: RPCClient(host: "127.0.0.1", port: try #require(stack.discovery?.port)))
        defer { discovery.client.close() }
        _ = try await discovery.unmatch(.init(matchID: matchID), options: ana.bearer)
        try await Self.waitUntil(people.admin, "production saw the match end",
                                 "SELECT ended_at IS NOT NULL FROM production.matches WHERE id = '\(matchID)'")
        let failure = await reason {
            _ = try await people.dates.proposeDate(.init(matchID: matchID, restaurantID: "amal", scheduledAt: Self.tomorrow),
                                                   options: ana.bearer)
        }
        #expect(failure?.reason == "MATCH_NOT_FOUND")
        let dates = try await people.dates.listDates(.init(matchID: matchID), options: ana.bearer).dates
        #expect(dates.map(\.id) == [planned.id] && dates.first?.status == .cancelled)
    }
}
