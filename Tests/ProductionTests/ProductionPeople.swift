import Auth
import Contracts
import Foundation
import Postgres
import RPC
import TestSupport
import Testing

/// One signed-in person: their account and access token.
struct Person: Sendable {
    let id: String
    let app: String
    let token: String
    var refreshToken = ""

    var bearer: CallOptions { .bearer(token, timeout: .seconds(10)) }
}

/// Signs people up through identity in the roles the show has (host, applicant, viewer, admin)
/// and holds typed clients of the production executable.
struct ProductionPeople: Sendable {
    let identity: IdentityClient
    let casting: CastingClient
    let episodes: EpisodesClient
    let consent: ConsentClient
    let ledger: LedgerClient
    let studio: StudioClient
    let dates: DatesClient
    let content: ContentClient
    let points: PointsClient
    let admin: PostgresPool

    static func make() async throws -> ProductionPeople {
        let stack = try ProductionHarness.running
        let identity = RPCClient(host: "127.0.0.1", port: stack.identity.port)
        let production = RPCClient(host: "127.0.0.1", port: stack.production.port)
        return ProductionPeople(identity: IdentityClient(client: identity), casting: CastingClient(client: production),
                                episodes: EpisodesClient(client: production), consent: ConsentClient(client: production),
                                ledger: LedgerClient(client: production), studio: StudioClient(client: production),
                                dates: DatesClient(client: production), content: ContentClient(client: production),
                                points: PointsClient(client: production),
                                admin: try await TestDatabase.makeAdminPool())
    }

    func close() {
        identity.client.close()
        casting.client.close()
        admin.close()
    }

    /// A new member of `app` in the app's default role (FirstDate: viewer; The Unseen: an
    /// anonymous device account).
    func join(_ app: String = "firstdate") async throws -> Person {
        let session: Identity.AuthSession
        if app == "elite" || app == "firstdate" {
            session = try await identity.signUpWithEmail(.init(app: app, email: "\(TestDatabase.uniqueName("prod"))@example.com",
                                                               password: "correct horse battery staple", deviceName: "tests"))
        } else {
            session = try await identity.signInAnonymously(.init(app: app, deviceName: "tests"))
        }
        return Person(id: try #require(session.account).id, app: app, token: session.accessToken,
                      refreshToken: session.refreshToken)
    }

    /// A new member of `app` given `role` the way an operator does (`identity grant-role`), with a
    /// refreshed token carrying it.
    func join(_ app: String = "firstdate", as role: String) async throws -> Person {
        let person = try await join(app)
        let result = try await Subprocess.run(
            try RepositoryPaths.builtExecutable("identity"),
            ["grant-role", "--app", app, "--account-id", person.id, "--role", role],
            environment: ["RV_PG_URL_IDENTITY": DiscoveryStack.postgresURL(role: "identity")], timeout: .seconds(60))
        guard result.exitCode == 0 else { throw SubprocessError(message: "identity grant-role: \(result.output)") }
        let session = try await identity.refreshSession(.init(refreshToken: person.refreshToken))
        return Person(id: person.id, app: app, token: session.accessToken, refreshToken: session.refreshToken)
    }

    /// A host's new season with a number no other test uses.
    func season(by host: Person) async throws -> Production.Season {
        for _ in 0..<20 {
            let number = Int32.random(in: 1...999)
            do {
                return try await episodes.createSeason(.init(number: number, title: "Season \(number)"), options: host.bearer)
            } catch let error as RPCError where error.reason == "SEASON_EXISTS" {
                continue
            }
        }
        throw SubprocessError(message: "no free season number")
    }

    /// A fresh episode of a fresh season.
    func episode(by host: Person, number: Int32 = 1, title: String = "Brickell at night") async throws -> Production.Episode {
        let season = try await season(by: host)
        return try await episodes.createEpisode(.init(seasonID: season.id, number: number, title: title, sponsor: "Casa Tua"),
                                                options: host.bearer)
    }

    /// Every step of the wizard for `person`, with `legalName`.
    func completeApplication(of person: Person, legalName: String = "Maya Alvarez-Reyes") async throws -> Production.Application {
        let steps: [Production.SaveApplicationRequest.Step] = [
            .aboutYou(.init(legalName: legalName, age: 27, bio: "Miami native", neighborhood: "Wynwood")),
            .story(.init(whyMe: "I plan dates like heists.", quizAnswers: ["ideal_date": "omakase", "red_flag": "no dessert"])),
            .look(.init(photoIDs: ["photo-1", "photo-2"], videoSelfieID: "video-1")),
            .consent(.init(acknowledged: true)),
        ]
        var application = Production.Application()
        for step in steps {
            application = try await casting.saveApplication(.init(step: step), options: person.bearer)
        }
        return application
    }

    /// `person` once identity has made them an applicant (it follows production's
    /// ApplicationSubmitted; the role change makes their older tokens stale), with a fresh token.
    func asApplicant(_ person: Person, timeout: Duration = .seconds(15)) async throws -> Person {
        let deadline = ContinuousClock.now + timeout
        var refreshToken = person.refreshToken
        while ContinuousClock.now < deadline {
            let session = try await identity.refreshSession(.init(refreshToken: refreshToken))
            refreshToken = session.refreshToken
            if session.account?.role == "applicant" {
                return Person(id: person.id, app: person.app, token: session.accessToken, refreshToken: session.refreshToken)
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw SubprocessError(message: "identity never made \(person.id) an applicant")
    }

    /// `person`'s completed and submitted application, and `person` as the applicant they became.
    func apply(_ person: Person, legalName: String = "Maya Alvarez-Reyes") async throws -> (Production.Application, Person) {
        _ = try await completeApplication(of: person, legalName: legalName)
        let submitted = try await casting.submitApplication(.init(), options: person.bearer)
        return (submitted, try await asApplicant(person))
    }

    /// A submitted application moved by `host` to selected and cast in `episode`, and its
    /// applicant with a token carrying the role.
    func cast(_ person: Person, legalName: String = "Maya Alvarez-Reyes", in episode: Production.Episode,
              by host: Person) async throws -> (application: Production.Application, applicant: Person) {
        let (submitted, applicant) = try await apply(person, legalName: legalName)
        for status in [Production.ApplicationStatus.reviewing, .shortlisted, .selected] {
            _ = try await casting.setApplicationStatus(.init(applicationID: submitted.id, status: status), options: host.bearer)
        }
        return (try await casting.assignToEpisode(.init(applicationID: submitted.id, episodeID: episode.id), options: host.bearer),
                applicant)
    }

    /// Moves an episode's deal to confirmed (with `value` on confirmation).
    func confirmDeal(of episode: Production.Episode, by host: Person,
                     value: Production.Money? = nil) async throws -> Production.Episode {
        var current = episode
        for stage in [Production.PitchStage.outreach, .negotiation] {
            current = try await episodes.advanceDeal(.init(episodeID: episode.id, stage: stage), options: host.bearer)
        }
        return try await episodes.advanceDeal(.init(episodeID: current.id, stage: .confirmed, dealValue: value),
                                              options: host.bearer)
    }

    /// Publishes a consent text of the app unique to this call, returning its version.
    func publishConsentText(by host: Person) async throws -> Production.ConsentTextVersion {
        try await consent.publishConsentText(.init(text: "I agree to be filmed. \(UUID().uuidString)"), options: host.bearer)
    }

    /// Captures consent as a host's device does: against the current text (published first when
    /// the app has none), reading it again when another host published a newer one meanwhile
    /// (tests run side by side on one app).
    func captureConsent(_ request: Production.CaptureConsentRequest, by person: Person) async throws -> Production.ConsentRecord {
        for _ in 0..<10 {
            var attempt = request
            do {
                attempt.consentTextVersion = try await consent.getCurrentConsentText(.init(), options: person.bearer).versionHash
            } catch let error as RPCError where error.reason == "NO_CONSENT_TEXT" {
                attempt.consentTextVersion = try await publishConsentText(by: person).versionHash
            }
            do {
                return try await consent.captureConsent(attempt, options: person.bearer)
            } catch let error as RPCError where error.reason == "STALE_CONSENT_TEXT" {
                continue
            }
        }
        throw SubprocessError(message: "the consent text kept changing")
    }

    /// Events of `type` production wrote about `aggregate`.
    func events(_ type: String, about aggregate: String) async throws -> Int64 {
        try await admin.withConnection { connection in
            try await connection.query("SELECT count(*)::int8 FROM production.outbox WHERE type = $1 AND aggregate_id = $2",
                                       [.text(type), .text(aggregate)])[0].decode(0, as: Int64.self)
        }
    }
}
