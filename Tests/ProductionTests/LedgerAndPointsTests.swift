import Auth
@testable import Production
import Contracts
import Foundation
import Postgres
import RPC
import TestSupport
import Testing

/// The show's money as hosts read it (P7) and The Unseen's points as members and the awarding
/// service meet them.
@Suite(.productionServices)
struct LedgerAndPointsTests {
    @Test func profitAndLoss_perSeasonAndEpisode_neverMixesCurrencies() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        let season = try await people.season(by: host)
        let one = try await people.episodes.createEpisode(.init(seasonID: season.id, number: 1, title: "One"), options: host.bearer)
        let two = try await people.episodes.createEpisode(.init(seasonID: season.id, number: 2, title: "Two"), options: host.bearer)
        func add(_ type: Production.EntryType, _ category: String, _ amount: Int64, _ currency: String = "USD",
                 episode: String = "", season: String = "") async throws {
            _ = try await people.ledger.addLedgerEntry(.init(type: type, category: category,
                                                             amount: .init(amountMinor: amount, currency: currency),
                                                             episodeID: episode, seasonID: season, receiptMediaID: "receipt"),
                                                       options: host.bearer)
        }
        try await add(.income, "sponsorship", 500_00, episode: one.id)
        try await add(.expense, "venue", 120_00, episode: one.id)
        try await add(.expense, "wardrobe", 80_00, episode: one.id)
        try await add(.expense, "talent", 300_00, episode: two.id)
        try await add(.income, "licensing", 1_000_00, "EUR", episode: two.id)
        try await add(.expense, "equipment", 50_00, season: season.id)

        let pnl = try await people.ledger.getProfitAndLoss(.init(seasonID: season.id), options: host.bearer)
        #expect(pnl.totals == [
            .init(currency: "EUR", incomeMinor: 1_000_00, expenseMinor: 0, netMinor: 1_000_00),
            .init(currency: "USD", incomeMinor: 500_00, expenseMinor: 550_00, netMinor: -50_00),
        ])
        #expect(pnl.entryCount == 6)
        #expect(pnl.episodes.map(\.number) == [1, 2])
        #expect(pnl.episodes[0].totals == [.init(currency: "USD", incomeMinor: 500_00, expenseMinor: 200_00, netMinor: 300_00)])
        #expect(pnl.episodes[1].totals.map(\.currency) == ["EUR", "USD"])
        #expect(pnl.categories.contains(.init(type: .expense, category: "venue", currency: "USD", amountMinor: 120_00, entries: 1)))

        let episodeOnly = try await people.ledger.getProfitAndLoss(.init(episodeID: two.id), options: host.bearer)
        #expect(episodeOnly.totals.count == 2 && episodeOnly.episodes.isEmpty)

        let page = try await people.ledger.listLedgerEntries(.init(seasonID: season.id, pageSize: 4), options: host.bearer)
        #expect(page.entries.count == 4 && !page.nextPageToken.isEmpty)
        let rest = try await people.ledger.listLedgerEntries(.init(seasonID: season.id, pageSize: 4, pageToken: page.nextPageToken),
                                                             options: host.bearer)
        #expect(rest.entries.count == 2 && rest.nextPageToken.isEmpty)
        #expect(Set((page.entries + rest.entries).map(\.id)).count == 6)

        let report = try await people.ledger.getSponsorReport(.init(seasonID: season.id, currency: "USD"), options: host.bearer)
        #expect(report.episodes.first?.roiBasisPoints == 15_000)

        let projection = try await people.ledger.getBreakevenProjection(
            .init(seasonID: season.id, currency: "USD", expectedIncomePerEpisodeMinor: 40_00, expectedCostPerEpisodeMinor: 20_00),
            options: host.bearer)
        #expect(projection.actualNetMinor == -50_00 && projection.episodesToBreakeven == 3 && projection.withinSeason)

        // Amounts whose arithmetic once overflowed and ended the process: an assumption beyond
        // any entry's bound is refused; a view count up to Int64.max is reported on.
        let huge = await reason {
            _ = try await people.ledger.getBreakevenProjection(
                .init(seasonID: season.id, currency: "USD", expectedIncomePerEpisodeMinor: 1 << 62, expectedCostPerEpisodeMinor: 0),
                options: host.bearer)
        }
        #expect(huge?.code == .invalidArgument)
        _ = try await people.episodes.updateEpisode(.init(episodeID: one.id, episode: .init(viewCount: .max), updateMask: ["view_count"]),
                                                    options: host.bearer)
        let viewed = try await people.ledger.getSponsorReport(.init(seasonID: season.id, currency: "USD"), options: host.bearer)
        #expect(viewed.episodes.first?.viewCount == .max && viewed.episodes.first?.costPerViewMinor == 1)
        #expect(viewed.episodes.first?.roiBasisPoints == 15_000)
    }

    @Test func ledger_refusesBadMoney_andEveryoneButProducers() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        let viewer = try await people.join()
        let applicant = try await people.join(as: "applicant")
        let eliteAdmin = try await people.join("elite", as: "admin")
        let season = try await people.season(by: host)
        let good = Production.AddLedgerEntryRequest(type: .expense, category: "crew", amount: .init(amountMinor: 1, currency: "USD"),
                                                    seasonID: season.id)
        for person in [viewer, applicant] {
            let failure = await reason { _ = try await people.ledger.addLedgerEntry(good, options: person.bearer) }
            #expect(failure?.reason == "PRODUCER_ONLY")
            let read = await reason { _ = try await people.ledger.getProfitAndLoss(.init(seasonID: season.id), options: person.bearer) }
            #expect(read?.reason == "PRODUCER_ONLY")
        }
        let otherApp = await reason { _ = try await people.ledger.getProfitAndLoss(.init(seasonID: season.id), options: eliteAdmin.bearer) }
        #expect(otherApp?.reason == "SEASON_NOT_FOUND")
        var bad: [Production.AddLedgerEntryRequest] = []
        for money in [Production.Money(amountMinor: 0, currency: "USD"), .init(amountMinor: -5, currency: "USD"),
                      .init(amountMinor: 5, currency: "usd"), .init(amountMinor: 5, currency: "DOLLARS")] {
            var request = good
            request.amount = money
            bad.append(request)
        }
        var noAmount = good
        noAmount.amount = nil
        bad.append(noAmount)
        for request in bad {
            let failure = await reason { _ = try await people.ledger.addLedgerEntry(request, options: host.bearer) }
            #expect(failure?.reason == "INVALID_MONEY")
        }
        var badCategory = good
        badCategory.category = "bribes"
        #expect(await reason { _ = try await people.ledger.addLedgerEntry(badCategory, options: host.bearer) }?.code == .invalidArgument)
        var neither = good
        neither.seasonID = ""
        _ = try await people.ledger.addLedgerEntry(neither, options: host.bearer)  // the show's overheads
        let pnlWithoutScope = await reason { _ = try await people.ledger.getProfitAndLoss(.init(), options: host.bearer) }
        #expect(pnlWithoutScope?.code == .invalidArgument)
    }

    @Test func breakeven_arithmetic() {
        let never = Breakeven.project(currency: "USD", actualNet: -100, episodesSoFar: 2, planned: 10, income: 10, cost: 10)
        #expect(never.episodesToBreakeven == -1 && !never.withinSeason && never.projectedSeasonNetMinor == -100)
        let there = Breakeven.project(currency: "USD", actualNet: 5, episodesSoFar: 2, planned: 10, income: 0, cost: 10)
        #expect(there.episodesToBreakeven == 0 && there.withinSeason && there.projectedSeasonNetMinor == 5 - 80)
        let late = Breakeven.project(currency: "USD", actualNet: -1_000, episodesSoFar: 8, planned: 10, income: 300, cost: 100)
        #expect(late.episodesToBreakeven == 5 && !late.withinSeason && late.projectedSeasonNetMinor == -600)
        #expect(LedgerStore.basisPoints(.max / 2, of: 1 << 40) == 4_194_303 * 10_000)
        #expect(LedgerStore.basisPoints(.max / 2, of: 3) == .max && LedgerStore.basisPoints(.min / 2, of: 1) == .min)
        #expect(LedgerStore.basisPoints(150, of: 100) == 15_000)
        #expect(LedgerStore.dividedRoundingUp(1, by: .max) == 1 && LedgerStore.dividedRoundingUp(10, by: 5) == 2)
    }

    @Test func points_awardedOnce_readOnlyByTheirOwner_neverTransferable() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let initiate = try await people.join("unseen")
        let stranger = try await people.join("unseen")
        let messaging = CallOptions.service(try ServiceCredential(name: "messaging", secret: ProductionStack.messagingSecret))
        let encounter = UUID().uuidString
        let award = Points.AwardRequest(app: "unseen", accountID: initiate.id, encounterID: encounter, reason: .resonanceMultiplier)

        // The same award retried eight times at once (an event redelivered, a timeout retried): granted once.
        let results = try await withThrowingTaskGroup(of: Points.AwardResponse.self) { group in
            for _ in 0..<8 { group.addTask { try await people.points.award(award, options: messaging) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.filter(\.granted).count == 1)
        #expect(Set(results.map(\.entry?.id)).count == 1)
        _ = try await people.points.award(.init(app: "unseen", accountID: initiate.id, encounterID: encounter, reason: .connectionBonus),
                                          options: messaging)
        let balance = try await people.points.getBalance(.init(), options: initiate.bearer)
        #expect(balance == Points.Balance(points: 110, entries: 2))
        #expect(try await people.points.getBalance(.init(), options: stranger.bearer) == Points.Balance(points: 0, entries: 0))
        let entries = try await people.points.listEntries(.init(), options: initiate.bearer).entries
        #expect(entries.map(\.reason).sorted { $0.rawValue < $1.rawValue } == [.connectionBonus, .resonanceMultiplier])

        // Members cannot award (so cannot move points to anyone), not even to themselves.
        var failure = await reason {
            _ = try await people.points.award(.init(app: "unseen", accountID: stranger.id, encounterID: "gift", reason: .courage),
                                              options: initiate.bearer)
        }
        #expect(failure?.code == .unauthenticated)
        // A service that is not an awarder is refused too.
        let discovery = CallOptions.service(try ServiceCredential(name: "discovery", secret: "not-accepted-secret-0123456789abcdef"))
        failure = await reason { _ = try await people.points.award(award, options: discovery) }
        #expect(failure?.code == .unauthenticated)
        failure = await reason {
            _ = try await people.points.award(.init(app: "unseen", accountID: initiate.id, encounterID: "e", reason: .unspecified),
                                              options: messaging)
        }
        #expect(failure?.code == .invalidArgument)
        failure = await reason {
            _ = try await people.points.award(.init(app: "firstdate", accountID: initiate.id, encounterID: "e", reason: .courage),
                                              options: messaging)
        }
        #expect(failure?.reason == "POINTS_APP_NOT_SUPPORTED")
        failure = await reason { _ = try await people.points.getBalance(.init(), options: try await people.join().bearer) }
        #expect(failure?.reason == "POINTS_APP_NOT_SUPPORTED")

        // The ledger itself is append-only: no update, and no delete outside an account's purge.
        let pool = try await TestDatabase.makePool(TestDatabase.configuration(role: "production", poolSize: 1))
        defer { pool.close() }
        for statement in ["UPDATE production.points_entries SET points = 1000000 WHERE account_id = $1::uuid",
                          "UPDATE production.points_entries SET account_id = gen_random_uuid() WHERE account_id = $1::uuid",
                          "DELETE FROM production.points_entries WHERE account_id = $1::uuid"] {
            do {
                try await pool.withConnection { try await $0.query(statement, [.text(initiate.id)]) }
                Issue.record("\(statement) was allowed")
            } catch let error as PostgresError {
                #expect(error.code == .sqlState("RZ002"))
            }
        }
        #expect(try await people.points.getBalance(.init(), options: initiate.bearer).points == 110)
    }
}

/// An account's deletion (identity's AccountDeleted) as production applies it.
@Suite(.productionServices)
struct AccountDeletionTests {
    @Test func aDeletedAccount_losesItsApplicationAndPoints_butItsConsentStays() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        var episode = try await people.confirmDeal(of: try await people.episode(by: host), by: host)
        episode = try await people.episodes.advanceProduction(.init(episodeID: episode.id, status: .casting), options: host.bearer)
        let (application, talent) = try await people.cast(try await people.join(), legalName: "Gone Person", in: episode, by: host)
        let record = try await people.captureConsent(.init(episodeID: episode.id, participantAccountID: talent.id,
                                                           typedName: "Gone Person", signatureMediaID: "sig"), by: host)
        let initiate = try await people.join("unseen")
        let messaging = CallOptions.service(try ServiceCredential(name: "messaging", secret: ProductionStack.messagingSecret))
        _ = try await people.points.award(.init(app: "unseen", accountID: initiate.id, encounterID: "e1", reason: .courage),
                                          options: messaging)

        for person in [talent, initiate] { _ = try await people.identity.deleteAccount(.init(), options: person.bearer) }
        let deadline = ContinuousClock.now + .seconds(15)
        var left: (applications: Int64, points: Int64) = (1, 1)
        while ContinuousClock.now < deadline {
            left = try await people.admin.withConnection { connection in
                (try await connection.query("SELECT count(*)::int8 FROM production.applications WHERE id = $1::uuid",
                                            [.text(application.id)])[0].decode(0, as: Int64.self),
                 try await connection.query("SELECT count(*)::int8 FROM production.points_entries WHERE account_id = $1::uuid",
                                            [.text(initiate.id)])[0].decode(0, as: Int64.self))
            }
            if left == (0, 0) { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(left.applications == 0 && left.points == 0)
        // The signed record is kept: the law asks for it, whatever happens to the account.
        let records = try await people.consent.listConsentRecords(.init(episodeID: episode.id), options: host.bearer).records
        #expect(records.map(\.id) == [record.id])
        #expect(try await people.episodes.getEpisode(.init(episodeID: episode.id), options: host.bearer).episode?.castAccountIDs == [])
    }
}

extension Production.EpisodeView {
    var episode: Production.Episode? { if case .episode(let episode)? = view { episode } else { nil } }
}
