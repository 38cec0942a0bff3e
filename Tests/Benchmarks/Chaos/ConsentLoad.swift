import Contracts
import Foundation
import GatewayClient
import Synchronization

/// A FirstDate producer captures signed consent records during the ritual: before the load,
/// `participants` applicants are selected and cast in an episode of their own; then every
/// `interval` one of them signs again, each record tagged with a device description of its own.
/// CaptureConsent is not idempotent (the client never retries it): a record whose answer was
/// lost may exist once, never twice; an acknowledged one exactly once, and none is ever changed
/// (consent records are append-only).
final class ConsentLoad: Sendable {
    struct Capture: Sendable {
        let deviceInfo: String
        var recordID: String?
    }

    struct Participant: Sendable {
        let accountID: String
        let legalName: String
    }

    let episodeID: String
    private let host: GatewayClient
    private let participants: [Participant]
    private let textVersion: String
    private let captures = Mutex<[Capture]>([])

    private init(host: GatewayClient, episodeID: String, participants: [Participant], textVersion: String) {
        self.host = host
        self.episodeID = episodeID
        self.participants = participants
        self.textVersion = textVersion
    }

    static func prepare(_ population: Population, participants count: Int = 3) async throws -> ConsentLoad {
        let host = try population.client("firstdate")
        let account = try await host.identity.signUpWithEmail(Population.email("chaos-producer"), password: Population.password)
        try await population.stack.grantRole("host", to: account.id, app: "firstdate")
        _ = try await host.identity.refreshSession()
        let season = try await Population.persisting(while: ["SEASON_EXISTS"]) {
            try await host.production.createSeason(number: Int32.random(in: 1...999), title: "Chaos consent")
        }
        let episode = try await host.production.createEpisode(seasonID: season.id, number: 1, title: "Signed under load")
        for stage in [Production.PitchStage.outreach, .negotiation] {
            _ = try await host.production.advanceDeal(episodeID: episode.id, to: stage)
        }
        _ = try await host.production.advanceDeal(episodeID: episode.id, to: .confirmed,
                                                  dealValue: .init(amountMinor: 1_000_00, currency: "USD"))
        _ = try await host.production.advanceProduction(episodeID: episode.id, to: .casting)
        var cast: [Participant] = []
        for index in 0..<count {
            let applicant = try population.client("firstdate")
            let signedUp = try await applicant.identity.signUpWithEmail(Population.email("chaos-cast"), password: Population.password)
            // Letters only: a legal name has at least two words of them.
            let legalName = "Chaos " + ["Ana", "Ben", "Cleo", "Dora", "Eli", "Fay", "Gus", "Hana"][index % 8]
            for step: Production.SaveApplicationRequest.Step in [
                .aboutYou(.init(legalName: legalName, age: 30, bio: "Under load", neighborhood: "Wynwood")),
                .story(.init(whyMe: "Faults do not scare me.", quizAnswers: ["ideal_date": "cafecito"])),
                .look(.init(photoIDs: ["p1"], videoSelfieID: "v1")),
                .consent(.init(acknowledged: true)),
            ] {
                _ = try await applicant.production.saveApplicationStep(step)
            }
            let application = try await applicant.production.submitApplication()
            applicant.close()
            for status in [Production.ApplicationStatus.reviewing, .shortlisted, .selected] {
                _ = try await host.production.setApplicationStatus(application.id, to: status)
            }
            _ = try await host.production.assignToEpisode(applicationID: application.id, episodeID: episode.id)
            cast.append(Participant(accountID: signedUp.id, legalName: legalName))
        }
        // A text of its own, current from now on (producers publish; the cluster is the run's own).
        let text = try await host.production.publishConsentText("I consent to being filmed under load. \(UUID().uuidString)")
        return ConsentLoad(host: host, episodeID: episode.id, participants: cast, textVersion: text.versionHash)
    }

    func run(until end: ContinuousClock.Instant, interval: Duration) async {
        var turn = 0
        while ContinuousClock.now < end {
            let participant = participants[turn % participants.count]
            turn += 1
            var capture = Capture(deviceInfo: "chaos-\(UUID().uuidString)")
            let request = Production.CaptureConsentRequest(episodeID: episodeID, participantAccountID: participant.accountID,
                                                           typedName: participant.legalName, signatureMediaID: "sig",
                                                           consentTextVersion: textVersion, deviceInfo: capture.deviceInfo)
            capture.recordID = try? await host.production.captureConsent(request).id
            captures.withLock { $0.append(capture) }
            try? await Task.sleep(for: interval)
        }
    }

    var all: [Capture] { captures.withLock { $0 } }

    func close() { host.close() }
}
