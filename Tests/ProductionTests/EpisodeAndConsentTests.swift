import Contracts
import Foundation
import Postgres
import RPC
import TestSupport
import Testing

/// An episode's life as hosts run it and viewers watch it: the deal and production pipelines in
/// order, the consent gate kept by the database, publishing with BehindTheGlass, the membrane
/// (P3, P4), and the consent ritual's texts and immutable records (P5, P6).
@Suite(.productionServices)
struct EpisodeAndConsentTests {
    @Test func episode_throughDealAndProduction_withTheConsentGate() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        let episode = try await people.episode(by: host)
        #expect(episode.pitchStage == .identified && episode.status == .planning)

        var failure = await reason {
            _ = try await people.episodes.advanceDeal(.init(episodeID: episode.id, stage: .confirmed), options: host.bearer)
        }
        #expect(failure?.reason == "OUT_OF_ORDER")
        failure = await reason {
            _ = try await people.episodes.advanceProduction(.init(episodeID: episode.id, status: .casting), options: host.bearer)
        }
        #expect(failure?.reason == "DEAL_NOT_CONFIRMED")

        let confirmed = try await people.confirmDeal(of: episode, by: host,
                                                     value: Production.Money(amountMinor: 250_000, currency: "USD"))
        #expect(confirmed.pitchStage == .confirmed)
        #expect(confirmed.dealValue == Production.Money(amountMinor: 250_000, currency: "USD"))
        // Confirming again (a retry) posts nothing more: one income of the deal's value.
        _ = try await people.episodes.advanceDeal(.init(episodeID: episode.id, stage: .confirmed), options: host.bearer)
        let pnl = try await people.ledger.getProfitAndLoss(.init(episodeID: episode.id), options: host.bearer)
        #expect(pnl.totals == [Production.CurrencyTotals(currency: "USD", incomeMinor: 250_000, expenseMinor: 0, netMinor: 250_000)])
        #expect(pnl.categories.first?.category == "sponsorship")

        _ = try await people.episodes.advanceProduction(.init(episodeID: episode.id, status: .casting), options: host.bearer)
        let talent = try await people.join()
        _ = try await people.cast(talent, legalName: "Jordan Lee", in: confirmed, by: host)
        failure = await reason {
            _ = try await people.episodes.advanceProduction(.init(episodeID: episode.id, status: .scheduled), options: host.bearer)
        }
        #expect(failure?.code == .failedPrecondition)
        #expect(failure?.reason == "CONSENT_REQUIRED")

        _ = try await people.captureConsent(.init(episodeID: episode.id, participantAccountID: talent.id, typedName: "jordan  LEE",
                                                  signatureMediaID: "sig-1", deviceInfo: "iPhone 16, iOS 19"), by: host)
        let scheduled = try await people.episodes.advanceProduction(.init(episodeID: episode.id, status: .scheduled),
                                                                    options: host.bearer)
        #expect(scheduled.status == .scheduled)
        // The cast is fixed now.
        let late = try await people.join()
        failure = await reason { _ = try await people.cast(late, in: scheduled, by: host) }
        #expect(failure?.reason == "EPISODE_LOCKED")

        for status in [Production.EpisodeStatus.filmed, .editing] {
            _ = try await people.episodes.advanceProduction(.init(episodeID: episode.id, status: status), options: host.bearer)
        }
        failure = await reason {
            _ = try await people.episodes.advanceProduction(.init(episodeID: episode.id, status: .published), options: host.bearer)
        }
        #expect(failure?.reason == "BEHIND_THE_GLASS_REQUIRED")
        let detail = Production.BehindTheGlass(type: .dealStory, text: "A comp meal deal worth $2,500.")
        let published = try await people.episodes.advanceProduction(
            .init(episodeID: episode.id, status: .published, behindTheGlass: detail), options: host.bearer)
        #expect(published.status == .published)
        #expect(published.behindTheGlass == detail)
        #expect(try await people.events("EpisodePublished", about: episode.id) == 1)
    }

    @Test func consentGate_isTheDatabases_notJustTheAPIs() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        let episode = try await people.confirmDeal(of: try await people.episode(by: host), by: host)
        _ = try await people.episodes.advanceProduction(.init(episodeID: episode.id, status: .casting), options: host.bearer)
        // Straight to the table as the service's own role: the trigger still refuses.
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "production", poolSize: 1))
        defer { pool.close() }
        await #expect(throws: PostgresError.self) {
            try await pool.withConnection { connection in
                try await connection.query("UPDATE production.episodes SET status = 3 WHERE id = $1::uuid", [.text(episode.id)])
            }
        }
    }

    @Test func revokedConsent_closesTheGateAgain_andRecordsNeverChange() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        let episode = try await people.confirmDeal(of: try await people.episode(by: host), by: host)
        _ = try await people.episodes.advanceProduction(.init(episodeID: episode.id, status: .casting), options: host.bearer)
        let (_, talent) = try await people.cast(try await people.join(), legalName: "Ana Diaz", in: episode, by: host)
        let capture = Production.CaptureConsentRequest(episodeID: episode.id, participantAccountID: talent.id, typedName: "Ana Diaz",
                                                       signatureMediaID: "sig-2")
        var failure = await reason {
            var wrong = capture
            wrong.typedName = "Anna Dias"
            _ = try await people.captureConsent(wrong, by: host)
        }
        #expect(failure?.reason == "TYPED_NAME_MISMATCH")
        failure = await reason {
            var stale = capture
            stale.consentTextVersion = String(repeating: "0", count: 64)
            _ = try await people.consent.captureConsent(stale, options: host.bearer)
        }
        #expect(failure?.reason == "STALE_CONSENT_TEXT")
        failure = await reason {
            var stranger = capture
            stranger.participantAccountID = host.id
            _ = try await people.captureConsent(stranger, by: host)
        }
        #expect(failure?.reason == "NOT_CAST")
        failure = await reason { _ = try await people.captureConsent(capture, by: talent) }
        #expect(failure?.reason == "PRODUCER_ONLY")
        failure = await reason {
            _ = try await people.consent.revokeConsent(.init(episodeID: episode.id, participantAccountID: talent.id), options: host.bearer)
        }
        #expect(failure?.reason == "NO_STANDING_CONSENT")

        let signed = try await people.captureConsent(capture, by: host)
        #expect(signed.type == .signed && signed.consentTextVersion.count == 64 && signed.capturedBy == host.id)
        let revocation = try await people.consent.revokeConsent(
            .init(episodeID: episode.id, participantAccountID: talent.id, reason: "changed her mind"), options: host.bearer)
        #expect(revocation.type == .revocation)
        failure = await reason {
            _ = try await people.episodes.advanceProduction(.init(episodeID: episode.id, status: .scheduled), options: host.bearer)
        }
        #expect(failure?.reason == "CONSENT_REQUIRED")

        // Both records stay; the participant reads their own; nobody else but producers does.
        let records = try await people.consent.listConsentRecords(.init(episodeID: episode.id), options: host.bearer).records
        #expect(records.map(\.type) == [.signed, .revocation])
        let own = try await people.consent.listMyConsentRecords(.init(), options: talent.bearer).records
        #expect(own.map(\.id) == records.map(\.id))
        failure = await reason { _ = try await people.consent.listConsentRecords(.init(episodeID: episode.id), options: talent.bearer) }
        #expect(failure?.reason == "PRODUCER_ONLY")

        // No path changes a record, not even the service's own role straight on the table.
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "production", poolSize: 1))
        defer { pool.close() }
        for statement in ["UPDATE production.consent_records SET typed_name = 'Someone Else' WHERE id = $1::uuid",
                          "DELETE FROM production.consent_records WHERE id = $1::uuid"] {
            do {
                try await pool.withConnection { try await $0.query(statement, [.text(signed.id)]) }
                Issue.record("\(statement) was allowed")
            } catch let error as PostgresError {
                #expect(error.code == .sqlState("RZ002"))
            }
        }
        #expect(try await people.consent.listConsentRecords(.init(episodeID: episode.id), options: host.bearer).records == records)
    }

    @Test func consentText_hasExactlyOneCurrentVersion_namedByItsHash() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        let viewer = try await people.join()
        let text = "FirstDate consent \(UUID().uuidString)"
        let version = try await people.consent.publishConsentText(.init(text: text), options: host.bearer)
        let expected = try await people.admin.withConnection { connection in
            try await connection.query("SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex')", [.text(text)])[0].decode(0, as: String.self)
        }
        #expect(version.versionHash == expected)
        #expect(try await people.consent.publishConsentText(.init(text: text), options: host.bearer) == version)
        #expect(try await people.consent.getCurrentConsentText(.init(), options: viewer.bearer) == version)
        // Another app may adopt the very same text: versions are per app.
        let eliteAdmin = try await people.join("elite", as: "admin")
        #expect(try await people.consent.publishConsentText(.init(text: text), options: eliteAdmin.bearer).versionHash == version.versionHash)
        var failure = await reason { _ = try await people.consent.publishConsentText(.init(text: "mine"), options: viewer.bearer) }
        #expect(failure?.reason == "PRODUCER_ONLY")

        // Two hosts publishing at once: one current version at the end.
        async let a = people.consent.publishConsentText(.init(text: "A \(UUID().uuidString)"), options: host.bearer)
        async let b = people.consent.publishConsentText(.init(text: "B \(UUID().uuidString)"), options: host.bearer)
        _ = try await (a, b)
        let current = try await people.admin.withConnection { connection in
            try await connection.query("""
                SELECT count(*)::int8 FROM production.consent_text_versions WHERE app = 'firstdate' AND superseded_at IS NULL
                """)[0].decode(0, as: Int64.self)
        }
        #expect(current == 1)
        // And the database refuses a second current version outright.
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "production", poolSize: 1))
        defer { pool.close() }
        do {
            try await pool.withConnection { connection in
                try await connection.query("INSERT INTO production.consent_text_versions (version_hash, app, consent_text) VALUES ($1, 'firstdate', 'x')",
                                           [.text(String(repeating: "a", count: 64))])
            }
            Issue.record("a second current version was stored")
        } catch let error as PostgresError {
            #expect(error.code == .sqlState(.uniqueViolation))
        }
        failure = await reason { _ = try await people.consent.publishConsentText(.init(text: text), options: host.bearer) }
        #expect(failure?.code == .failedPrecondition, "a superseded text does not come back")
        #expect(failure?.reason == "CONSENT_TEXT_SUPERSEDED")
    }

    @Test func membrane_viewersAndApplicantsSeeOnlyPublishedEpisodes() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        let viewer = try await people.join()
        let season = try await people.season(by: host)
        let draft = try await people.episodes.createEpisode(.init(seasonID: season.id, number: 1, title: "Unaired"), options: host.bearer)
        var live = try await people.episodes.createEpisode(.init(seasonID: season.id, number: 2, title: "Aired", sponsor: "Zuma"),
                                                           options: host.bearer)
        live = try await people.confirmDeal(of: live, by: host, value: .init(amountMinor: 99_00, currency: "USD"))
        _ = try await people.episodes.advanceProduction(.init(episodeID: live.id, status: .casting), options: host.bearer)
        let talent = try await people.join()
        _ = try await people.cast(talent, legalName: "Lee Park", in: live, by: host)
        _ = try await people.captureConsent(.init(episodeID: live.id, participantAccountID: talent.id, typedName: "Lee Park",
                                                  signatureMediaID: "sig"), by: host)
        for status in [Production.EpisodeStatus.scheduled, .filmed, .editing] {
            _ = try await people.episodes.advanceProduction(.init(episodeID: live.id, status: status), options: host.bearer)
        }
        _ = try await people.episodes.updateEpisode(.init(episodeID: live.id, episode: .init(hookSeconds: 12, viewCount: 4_000),
                                                          updateMask: ["hook_seconds", "view_count"]), options: host.bearer)
        _ = try await people.episodes.advanceProduction(
            .init(episodeID: live.id, status: .published, behindTheGlass: .init(type: .restaurantSecret, text: "Table 6 is the best.")),
            options: host.bearer)

        let seen = try await people.episodes.listEpisodes(.init(seasonID: season.id), options: viewer.bearer).episodes
        #expect(seen.count == 1)
        guard case .published(let view)? = seen.first?.view else { Issue.record("viewers get the published view"); return }
        #expect(view.id == live.id && view.title == "Aired" && view.hookSeconds == 12 && view.viewCount == 4_000)
        #expect(view.behindTheGlass?.text == "Table 6 is the best.")
        var failure = await reason { _ = try await people.episodes.getEpisode(.init(episodeID: draft.id), options: viewer.bearer) }
        #expect(failure?.reason == "EPISODE_NOT_FOUND")
        let hostView = try await people.episodes.listEpisodes(.init(seasonID: season.id), options: host.bearer).episodes
        #expect(hostView.count == 2)
        guard case .episode(let full)? = hostView.last?.view else { Issue.record("hosts get the whole episode"); return }
        #expect(full.dealValue?.amountMinor == 99_00 && full.sponsor == "Zuma")
        let seasons = try await people.episodes.listSeasons(.init(), options: viewer.bearer).seasons
        #expect(seasons.first { $0.id == season.id }?.publishedEpisodes == 1)

        failure = await reason {
            _ = try await people.episodes.updateEpisode(.init(episodeID: live.id, episode: .init(title: "Mine"), updateMask: ["title"]),
                                                        options: viewer.bearer)
        }
        #expect(failure?.reason == "PRODUCER_ONLY")
        failure = await reason {
            _ = try await people.episodes.updateEpisode(.init(episodeID: live.id, episode: .init(), updateMask: ["status"]),
                                                        options: host.bearer)
        }
        #expect(failure?.code == .invalidArgument)
        failure = await reason {
            _ = try await people.episodes.createEpisode(.init(seasonID: season.id, number: 2, title: "Again"), options: host.bearer)
        }
        #expect(failure?.reason == "EPISODE_EXISTS")
    }
}
