import Contracts
import Foundation
import GatewayClient
import RPC
import TestSupport

/// FirstDate: a viewer applies and becomes an applicant; the host reviews and selects her, takes
/// an episode through its deal and production pipelines past the consent gate, and publishes it
/// with its BehindTheGlass detail; a viewer is refused the episode until then and afterwards sees
/// only the membrane, while the host reads the episode's P&L. Crosses identity, production,
/// messaging (the applicant's push) and the ledger.
package struct FirstDateJourney {
    let context: JourneyContext

    package init(context: JourneyContext) { self.context = context }

    package func run() async throws {
        let clients = Clients()
        defer { clients.close() }
        let host = try context.client("firstdate", in: clients)
        let hostAccount = try await host.identity.signUpWithEmail(JourneyContext.email("fd-host"), password: JourneyContext.password)
        try await context.stack.grantRole("host", to: hostAccount.id, app: "firstdate")
        _ = try await host.identity.refreshSession()
        let viewer = try context.client("firstdate", in: clients)
        _ = try await viewer.identity.signUpWithEmail(JourneyContext.email("fd-viewer"), password: JourneyContext.password)

        // A viewer fills in the application wizard and submits: identity makes her an applicant.
        let camila = try context.client("firstdate", in: clients)
        let camilaAccount = try await camila.identity.signUpWithEmail(JourneyContext.email("fd-camila"), password: JourneyContext.password)
        try check(camilaAccount.role == "viewer", "a new FirstDate account is a viewer, not \(camilaAccount.role)")
        let camilaToken = JourneyContext.deviceToken()
        _ = try await camila.devices.registerPushToken(camilaToken, platform: .apns, environment: .production, deviceID: "camila-phone")
        for step: Production.SaveApplicationRequest.Step in [
            .aboutYou(.init(legalName: "Camila Ortiz", age: 29, bio: "Chef", neighborhood: "Little Havana")),
            .story(.init(whyMe: "I cook on first dates.", quizAnswers: ["ideal_date": "cafecito"])),
            .look(.init(photoIDs: ["p1"], videoSelfieID: "v1")),
            .consent(.init(acknowledged: true)),
        ] {
            _ = try await camila.production.saveApplicationStep(step)
        }
        let application = try await camila.production.submitApplication()
        try check(application.status == .pending, "a submitted application is pending")
        _ = try await context.eventually("Camila to become an applicant", {
            _ = try await camila.identity.refreshSession()
            return try await camila.identity.getAccount().role
        }) { $0 == "applicant" }

        // The host finds her in the casting queue and selects her; she is told by push.
        let queue = try await host.production.applications(status: .pending, pageSize: 100)
        try check(queue.applications.contains { $0.id == application.id } || queue.nextPageToken != "",
                  "the host's pending queue holds her application")
        for status in [Production.ApplicationStatus.reviewing, .shortlisted, .selected] {
            _ = try await host.production.setApplicationStatus(application.id, to: status)
        }
        try check(try await camila.production.myApplication().status == .selected, "she sees herself selected")
        try await context.push(to: camilaToken, category: "application_update")

        // An episode through the deal pipeline, one stage at a time.
        let season = try await createSeason(host)
        var episode = try await host.production.createEpisode(seasonID: season.id, number: 1, title: "Omakase for two", sponsor: "Hiden")
        let episodeID = episode.id
        try await refused(.failedPrecondition, "OUT_OF_ORDER", "a deal skipping its stages") {
            _ = try await host.production.advanceDeal(episodeID: episodeID, to: .confirmed)
        }
        for stage in [Production.PitchStage.outreach, .negotiation] {
            episode = try await host.production.advanceDeal(episodeID: episodeID, to: stage)
        }
        episode = try await host.production.advanceDeal(episodeID: episodeID, to: .confirmed,
                                                        dealValue: .init(amountMinor: 1_500_00, currency: "USD"))
        episode = try await host.production.advanceProduction(episodeID: episodeID, to: .casting)
        _ = try await host.production.assignToEpisode(applicationID: application.id, episodeID: episodeID)

        // The consent gate: no filming schedule before her signed consent.
        try await refused(.failedPrecondition, "CONSENT_REQUIRED", "scheduling without consent") {
            _ = try await host.production.advanceProduction(episodeID: episodeID, to: .scheduled)
        }
        let text = try await consentText(host)
        let signed = try await host.production.captureConsent(.init(episodeID: episodeID, participantAccountID: camilaAccount.id,
                                                                    typedName: "Camila Ortiz", signatureMediaID: "sig",
                                                                    consentTextVersion: text.versionHash, deviceInfo: "iPad"))
        try check(try await camila.production.myConsentRecords().contains(signed), "she sees her signed consent")
        for status in [Production.EpisodeStatus.scheduled, .filmed, .editing] {
            episode = try await host.production.advanceProduction(episodeID: episodeID, to: status)
        }
        _ = try await host.production.addLedgerEntry(.init(type: .expense, category: "wardrobe",
                                                           amount: .init(amountMinor: 300_00, currency: "USD"), episodeID: episodeID))

        // Before publishing, a viewer is refused the episode; after it, sees only the membrane.
        try await refused(.notFound, "EPISODE_NOT_FOUND", "a viewer asking for the unpublished episode") {
            _ = try await viewer.production.episode(episodeID)
        }
        episode = try await host.production.advanceProduction(
            episodeID: episodeID, to: .published,
            behindTheGlass: .init(type: .castingDecision, text: "Picked Camila from 47 applicants for her knife skills."))
        try check(episode.status == .published, "the episode is published")
        let view = try await viewer.production.episode(episodeID).view
        guard case .published(let seen)? = view else {
            throw JourneyFailure("the viewer sees the published episode only through the membrane")
        }
        try check(seen.behindTheGlass?.type == .castingDecision && seen.title == "Omakase for two",
                  "the membrane carries the title and the BehindTheGlass detail")
        try await refused(.permissionDenied, "PRODUCER_ONLY", "a viewer reading the ledger") {
            _ = try await viewer.production.profitAndLoss(episodeID: episodeID)
        }

        // The host's P&L for the episode: the deal's income less the wardrobe.
        let pnl = try await host.production.profitAndLoss(episodeID: episodeID)
        try check(pnl.totals == [.init(currency: "USD", incomeMinor: 1_500_00, expenseMinor: 300_00, netMinor: 1_200_00)],
                  "the episode's P&L is 1,500 in, 300 out, 1,200 net: \(pnl.totals)")
    }

    /// A new season under a free number (numbers are per app, 1-999; others hold some).
    private func createSeason(_ host: GatewayClient) async throws -> Production.Season {
        for _ in 0..<50 {
            let attempt = await outcome {
                try await host.production.createSeason(number: Int32.random(in: 1...999), title: "Miami Nights")
            }
            switch attempt {
            case .success(let season): return season
            case .failure(let error) where (error as? GatewayError)?.reason == "SEASON_EXISTS": continue
            case .failure(let error): throw error
            }
        }
        throw JourneyFailure("no free season number in 50 tries")
    }

    /// The current consent text, published first when the app has none yet (NO_CONSENT_TEXT).
    private func consentText(_ host: GatewayClient) async throws -> Production.ConsentTextVersion {
        let current = await outcome {
            try await host.production.currentConsentText()
        }
        switch current {
        case .success(let text): return text
        case .failure(let error) where (error as? GatewayError)?.reason == "NO_CONSENT_TEXT":
            return try await host.production.publishConsentText("I consent to being filmed. \(UUID().uuidString)")
        case .failure(let error): throw error
        }
    }
}
