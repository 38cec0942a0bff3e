import Contracts
import Foundation
import GatewayClient
import GatewayClientHTTP2
import RPC
import TestSupport
import Testing

/// FirstDate's show as its apps meet it: `GatewayClient` talking to one address, the nginx edge,
/// which routes to the real identity and production executables.
@Suite(.serialized) struct EndToEndProductionTests {
    static func withStack(_ body: (ProductionStack) async throws -> Void) async throws {
        let stack = try await ProductionStack.start(withEdge: true)
        do {
            try await body(stack)
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    static func client(_ stack: ProductionStack, app: String = "firstdate") throws -> GatewayClient {
        let edge = try #require(stack.edge)
        return try GatewayClient(configuration: GatewayConfiguration(host: "127.0.0.1", port: edge.port, security: .plaintext,
                                                                     app: app, deviceName: "e2e"),
                                 tokenStore: InMemoryTokenStore())
    }

    /// A signed-up FirstDate member, given `role` by an operator when asked.
    static func member(_ stack: ProductionStack, role: String? = nil) async throws -> (GatewayClient, String) {
        let client = try client(stack)
        let account = try await client.identity.signUpWithEmail("\(TestDatabase.uniqueName("e2e"))@example.com",
                                                                password: "correct horse battery staple")
        if let role {
            let result = try await Subprocess.run(
                try RepositoryPaths.builtExecutable("identity"),
                ["grant-role", "--app", "firstdate", "--account-id", account.id, "--role", role],
                environment: ["RV_PG_URL_IDENTITY": DiscoveryStack.postgresURL(role: "identity")], timeout: .seconds(60))
            guard result.exitCode == 0 else { throw SubprocessError(message: "identity grant-role: \(result.output)") }
            _ = try await client.identity.refreshSession()
        }
        return (client, account.id)
    }

    /// From an application to a published episode: the wizard, the host's pipeline, the consent
    /// gate refusing then allowing SCHEDULED, publishing with BehindTheGlass, the viewer seeing
    /// only the membrane, and the season's P&L.
    @Test func firstDate_applicationToPublishedEpisode_throughTheEdge() async throws {
        try await Self.withStack { stack in
            let (host, _) = try await Self.member(stack, role: "host")
            let (applicant, applicantID) = try await Self.member(stack)
            let (viewer, _) = try await Self.member(stack)
            defer { [host, applicant, viewer].forEach { $0.close() } }

            for step: Production.SaveApplicationRequest.Step in [
                .aboutYou(.init(legalName: "Camila Ortiz", age: 29, bio: "Chef", neighborhood: "Little Havana")),
                .story(.init(whyMe: "I cook on first dates.", quizAnswers: ["ideal_date": "cafecito"])),
                .look(.init(photoIDs: ["p1"], videoSelfieID: "v1")),
                .consent(.init(acknowledged: true)),
            ] {
                _ = try await applicant.production.saveApplicationStep(step)
            }
            let application = try await applicant.production.submitApplication()
            #expect(application.status == .pending)
            // Identity makes her an applicant; her client refreshes when the old token goes stale.
            let deadline = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < deadline, try await applicant.identity.getAccount().role != "applicant" {
                _ = try await applicant.identity.refreshSession()
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await applicant.identity.getAccount().role == "applicant")
            #expect(try await applicant.production.myApplication().id == application.id)

            var created: Production.Season?
            for _ in 0..<20 where created == nil {  // numbers are per app; other tests hold some
                do {
                    created = try await host.production.createSeason(number: Int32.random(in: 1...999), title: "Miami Nights")
                } catch let error as GatewayError where error.productionReason == .seasonExists {
                    continue
                }
            }
            let season = try #require(created)
            var episode = try await host.production.createEpisode(seasonID: season.id, number: 1, title: "Omakase for two",
                                                                  sponsor: "Hiden")
            // Stages go one at a time: skipping to confirmed is refused with its reason.
            do {
                _ = try await host.production.advanceDeal(episodeID: episode.id, to: .confirmed)
                Issue.record("a deal skipped its stages")
            } catch {
                #expect((error as? GatewayError)?.productionReason == .outOfOrder)
            }
            for stage in [Production.PitchStage.outreach, .negotiation] {
                episode = try await host.production.advanceDeal(episodeID: episode.id, to: stage)
            }
            episode = try await host.production.advanceDeal(episodeID: episode.id, to: .confirmed,
                                                            dealValue: .init(amountMinor: 1_500_00, currency: "USD"))
            episode = try await host.production.advanceProduction(episodeID: episode.id, to: .casting)
            for status in [Production.ApplicationStatus.reviewing, .shortlisted, .selected] {
                _ = try await host.production.setApplicationStatus(application.id, to: status)
            }
            _ = try await host.production.assignToEpisode(applicationID: application.id, episodeID: episode.id)

            do {
                _ = try await host.production.advanceProduction(episodeID: episode.id, to: .scheduled)
                Issue.record("an episode was scheduled without consent")
            } catch {
                #expect((error as? GatewayError)?.productionReason == .consentRequired)
            }
            let first = "I consent to being filmed. \(UUID().uuidString)"
            _ = try await host.production.publishConsentText(first)
            let text = try await host.production.publishConsentText("I consent to being filmed, v2. \(UUID().uuidString)")
            // A superseded text never becomes current again: one current version, always the newest.
            do {
                _ = try await host.production.publishConsentText(first)
                Issue.record("a superseded consent text came back")
            } catch {
                #expect((error as? GatewayError)?.productionReason == .consentTextSuperseded)
            }
            let signed = try await host.production.captureConsent(.init(episodeID: episode.id, participantAccountID: applicantID,
                                                                        typedName: "Camila Ortiz", signatureMediaID: "sig",
                                                                        consentTextVersion: text.versionHash, deviceInfo: "iPad"))
            for status in [Production.EpisodeStatus.scheduled, .filmed, .editing] {
                episode = try await host.production.advanceProduction(episodeID: episode.id, to: status)
            }
            _ = try await host.production.addLedgerEntry(.init(type: .expense, category: "wardrobe",
                                                               amount: .init(amountMinor: 300_00, currency: "USD"),
                                                               episodeID: episode.id))
            episode = try await host.production.advanceProduction(
                episodeID: episode.id, to: .published,
                behindTheGlass: .init(type: .castingDecision, text: "Picked Camila from 47 applicants for her knife skills."))
            #expect(episode.status == .published)

            let seen = try await viewer.production.episodes(seasonID: season.id)
            guard case .published(let view)? = seen.first?.view, seen.count == 1 else {
                Issue.record("the viewer sees the published episode through the membrane")
                return
            }
            #expect(view.behindTheGlass?.type == .castingDecision)
            do {
                _ = try await viewer.production.profitAndLoss(seasonID: season.id)
                Issue.record("a viewer read the ledger")
            } catch {
                #expect((error as? GatewayError)?.productionReason == .producerOnly)
            }
            let pnl = try await host.production.profitAndLoss(seasonID: season.id)
            #expect(pnl.totals == [.init(currency: "USD", incomeMinor: 1_500_00, expenseMinor: 300_00, netMinor: 1_200_00)])
            // No call changes a consent record; revoking inserts a record of its own, once.
            let revocation = try await host.production.revokeConsent(episodeID: episode.id, participantAccountID: applicantID,
                                                                     reason: "after the episode aired")
            #expect(revocation.type == .revocation)
            do {
                _ = try await host.production.revokeConsent(episodeID: episode.id, participantAccountID: applicantID)
                Issue.record("a consent was revoked twice")
            } catch {
                #expect((error as? GatewayError)?.productionReason == .noStandingConsent)
            }
            let records = try await applicant.production.myConsentRecords()
            #expect(records.map(\.type) == [.signed, .revocation])
            #expect(records.first == signed, "the signed record is unchanged")
        }
    }
}
