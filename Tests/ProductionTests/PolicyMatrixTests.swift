import Contracts
import Foundation
import Postgres
import RPC
import TestSupport
import Testing

/// production.proto's policies, one by one, tried as every role the issue names: host and admin
/// (producers), applicant, viewer, and another app's producer (an ÉLITE admin, whose app runs a
/// show of its own here). Each row says who is let through; everyone else must be refused with
/// the stated reason, and nobody sees another app's rows.
@Suite(.productionServices)
struct PolicyMatrixTests {
    enum Role: String, CaseIterable, CustomStringConvertible {
        case host, admin, applicant, viewer, otherAppProducer
        var description: String { rawValue }
    }

    struct Fixture {
        var people: ProductionPeople
        var persons: [Role: Person]
        var season: Production.Season
        var draft: Production.Episode
        var published: Production.Episode
        var application: Production.Application
    }

    static func fixture() async throws -> Fixture {
        let people = try await ProductionPeople.make()
        let host = try await people.join(as: "host")
        var persons: [Role: Person] = [
            .host: host, .admin: try await people.join(as: "admin"), .viewer: try await people.join(),
            .otherAppProducer: try await people.join("elite", as: "admin"),
        ]
        let (application, applicant) = try await people.apply(try await people.join(), legalName: "Policy Person")
        persons[.applicant] = applicant
        // ÉLITE runs a show here too (the tests' RV_PRODUCTION_APPS), with a consent text of its own.
        _ = try await people.publishConsentText(by: try #require(persons[.otherAppProducer]))
        let season = try await people.season(by: host)
        let draft = try await people.episodes.createEpisode(.init(seasonID: season.id, number: 1, title: "Draft"), options: host.bearer)
        var published = try await people.episodes.createEpisode(.init(seasonID: season.id, number: 2, title: "Aired"),
                                                                options: host.bearer)
        published = try await people.confirmDeal(of: published, by: host)
        _ = try await people.episodes.advanceProduction(.init(episodeID: published.id, status: .casting), options: host.bearer)
        let (_, talent) = try await people.cast(try await people.join(), legalName: "Cast Member", in: published, by: host)
        _ = try await people.captureConsent(.init(episodeID: published.id, participantAccountID: talent.id,
                                                  typedName: "Cast Member", signatureMediaID: "sig"), by: host)
        for status in [Production.EpisodeStatus.scheduled, .filmed, .editing] {
            _ = try await people.episodes.advanceProduction(.init(episodeID: published.id, status: status), options: host.bearer)
        }
        published = try await people.episodes.advanceProduction(
            .init(episodeID: published.id, status: .published, behindTheGlass: .init(type: .consentMoment, text: "Signed on camera.")),
            options: host.bearer)
        return Fixture(people: people, persons: persons, season: season, draft: draft, published: published, application: application)
    }

    /// One policy check: which roles pass, and what everyone else gets.
    struct Check {
        var name: String
        var allowed: Set<Role>
        var refusal: String
        var call: @Sendable (Fixture, Person) async throws -> Void
    }

    static let producers: Set<Role> = [.host, .admin]
    static let firstDate: Set<Role> = [.host, .admin, .applicant, .viewer]

    static let checks: [Check] = [
        Check(name: "P1 an application is read by its owner (and producers)", allowed: [.applicant, .host, .admin],
              refusal: "APPLICATION_NOT_FOUND") { f, p in
            _ = try await f.people.casting.getApplication(.init(applicationID: f.application.id), options: p.bearer)
        },
        Check(name: "P2 the inbox is the producers'", allowed: producers, refusal: "PRODUCER_ONLY") { f, p in
            let inbox = try await f.people.casting.listApplications(.init(status: .pending, pageSize: 100), options: p.bearer)
            // Another app's producer reads its own app's inbox, never this one's.
            guard inbox.applications.contains(where: { $0.id == f.application.id }) else {
                throw RPCError(code: .notFound, message: "not in this inbox")
            }
        },
        Check(name: "P2 the pipeline is worked by producers", allowed: producers, refusal: "PRODUCER_ONLY") { f, p in
            // The first producer moves it on; the second's same request is a retry that changes nothing.
            _ = try await f.people.casting.setApplicationStatus(.init(applicationID: f.application.id, status: .reviewing),
                                                                options: p.bearer)
        },
        Check(name: "P3 an unpublished episode is the producers'", allowed: producers, refusal: "EPISODE_NOT_FOUND") { f, p in
            _ = try await f.people.episodes.getEpisode(.init(episodeID: f.draft.id), options: p.bearer)
        },
        Check(name: "P3 episodes are made by producers", allowed: producers, refusal: "PRODUCER_ONLY") { f, p in
            _ = try await f.people.episodes.setBehindTheGlass(.init(episodeID: f.draft.id,
                                                                    behindTheGlass: .init(type: .dealStory, text: "x")),
                                                              options: p.bearer)
        },
        Check(name: "P4 a published episode is everyone's (of the app)", allowed: firstDate, refusal: "EPISODE_NOT_FOUND") { f, p in
            let view = try await f.people.episodes.getEpisode(.init(episodeID: f.published.id), options: p.bearer)
            let isFull = if case .episode? = view.view { true } else { false }
            if isFull != [Role.host, .admin].contains(where: { f.persons[$0]?.id == p.id }) {
                throw RPCError(code: .internal, message: "the membrane let the wrong view through")
            }
        },
        Check(name: "P5 the consent text is read by every member, each their own app's",
              allowed: firstDate.union([.otherAppProducer]), refusal: "NO_CONSENT_TEXT") { f, p in
            let text = try await f.people.consent.getCurrentConsentText(.init(), options: p.bearer)
            let own = try await f.people.admin.withConnection { connection in
                try await connection.query("SELECT count(*)::int8 FROM production.consent_text_versions WHERE app = $1 AND version_hash = $2",
                                           [.text(p.app), .text(text.versionHash)])[0].decode(0, as: Int64.self)
            }
            guard own == 1 else { throw RPCError(code: .internal, message: "another app's consent text leaked") }
        },
        Check(name: "P5 consent texts are published by producers (each for their own app)",
              allowed: producers.union([.otherAppProducer]), refusal: "PRODUCER_ONLY") { f, p in
            _ = try await f.people.consent.publishConsentText(.init(text: "Policy text \(UUID().uuidString)"), options: p.bearer)
        },
        Check(name: "P6 consent records are read by producers", allowed: producers, refusal: "PRODUCER_ONLY") { f, p in
            _ = try await f.people.consent.listConsentRecords(.init(episodeID: f.published.id), options: p.bearer)
        },
        Check(name: "P7 the ledger is the producers'", allowed: producers, refusal: "PRODUCER_ONLY") { f, p in
            _ = try await f.people.ledger.getProfitAndLoss(.init(seasonID: f.season.id), options: p.bearer)
        },
        Check(name: "P8 filming notes are the producers'", allowed: producers, refusal: "NO_NOTES") { f, p in
            let restaurants = try await f.people.studio.listRestaurants(.init(), options: p.bearer).restaurants
            if restaurants.allSatisfy({ $0.filmingNotes.isEmpty }) {
                throw RPCError(code: .permissionDenied, message: "no notes")
            }
        },
        Check(name: "P9 the studio is the producers'", allowed: producers, refusal: "PRODUCER_ONLY") { f, p in
            _ = try await f.people.studio.getChecklist(.init(episodeID: f.published.id), options: p.bearer)
        },
        Check(name: "P11 content scripts are the producers'", allowed: producers, refusal: "PRODUCER_ONLY") { f, p in
            _ = try await f.people.content.listScripts(.init(episodeID: f.published.id), options: p.bearer)
        },
    ]

    @Test func everyPolicy_letsThroughItsRoles_andRefusesTheRest() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.people.close() }
        for check in Self.checks {
            for role in Role.allCases {
                let person = try #require(fixture.persons[role])
                let failure = await reason { try await check.call(fixture, person) }
                if check.allowed.contains(role) {
                    #expect(failure == nil, "\(check.name): \(role) was refused \(String(describing: failure))")
                } else {
                    #expect(failure != nil, "\(check.name): \(role) was let through")
                    // Another app's producer never learns this app's rows exist.
                    if role == .otherAppProducer {
                        #expect(failure?.code == .notFound || failure?.code == .permissionDenied || failure?.reason == "NO_CONSENT_TEXT",
                                "\(check.name): \(String(describing: failure))")
                    } else if check.refusal != "NO_NOTES" {
                        #expect(failure?.reason == check.refusal, "\(check.name): \(role) got \(String(describing: failure))")
                    }
                }
            }
        }
    }
}
