import Contracts
import Foundation
import RPC
import TestSupport
import Testing

/// Casting as applicants and hosts meet it: the wizard saved step by step, one submission, the
/// producers' pipeline in order, and each person seeing only what the policies allow (P1, P2).
@Suite(.productionServices)
struct CastingTests {
    @Test func wizard_savesStepByStep_andSubmitsOnceWhenComplete() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let maya = try await people.join()

        var failure = await reason { _ = try await people.casting.getMyApplication(.init(), options: maya.bearer) }
        #expect(failure?.reason == "APPLICATION_NOT_FOUND")
        let first = try await people.casting.saveApplication(
            .init(step: .aboutYou(.init(legalName: "  Maya   Alvarez ", age: 27, bio: "hi", neighborhood: "Wynwood"))),
            options: maya.bearer)
        #expect(first.status == .draft)
        #expect(first.completedSteps == ["about_you"])
        #expect(first.aboutYou?.legalName == "Maya Alvarez")
        failure = await reason { _ = try await people.casting.submitApplication(.init(), options: maya.bearer) }
        #expect(failure?.code == .failedPrecondition)
        #expect(failure?.reason == "APPLICATION_INCOMPLETE")

        _ = try await people.completeApplication(of: maya, legalName: "Maya Alvarez")
        let mine = try await people.casting.getMyApplication(.init(), options: maya.bearer)
        #expect(mine.completedSteps == ["about_you", "story", "look", "consent"])
        #expect(mine.story?.quizAnswers["ideal_date"] == "omakase")
        #expect(mine.look?.photoIDs == ["photo-1", "photo-2"])

        // Two devices submitting at once: one submission, one event, the same application.
        async let a = people.casting.submitApplication(.init(), options: maya.bearer)
        async let b = people.casting.submitApplication(.init(), options: maya.bearer)
        let (one, two) = try await (a, b)
        #expect(one.status == .pending && two.status == .pending)
        #expect(one.submittedAt == two.submittedAt)
        #expect(try await people.events("ApplicationSubmitted", about: one.id) == 1)
        let applicant = try await people.asApplicant(maya)

        // Still editable while pending; locked once a host starts reviewing.
        _ = try await people.casting.saveApplication(.init(step: .story(.init(whyMe: "Second thoughts, same answer."))),
                                                     options: applicant.bearer)
        let host = try await people.join(as: "host")
        _ = try await people.casting.setApplicationStatus(.init(applicationID: one.id, status: .reviewing), options: host.bearer)
        failure = await reason {
            _ = try await people.casting.saveApplication(.init(step: .consent(.init(acknowledged: true))), options: applicant.bearer)
        }
        #expect(failure?.reason == "APPLICATION_LOCKED")
    }

    @Test func submission_makesTheViewerAnApplicant_inIdentity() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let viewer = try await people.join()
        let host = try await people.join(as: "host")
        #expect(try await people.identity.getAccount(.init(), options: viewer.bearer).role == "viewer")
        _ = try await people.completeApplication(of: viewer)
        _ = try await people.casting.submitApplication(.init(), options: viewer.bearer)
        // A host who applies (to test the wizard) stays a host.
        _ = try await people.completeApplication(of: host)
        _ = try await people.casting.submitApplication(.init(), options: host.bearer)

        // Identity follows production's ApplicationSubmitted: the next session carries the role.
        let deadline = ContinuousClock.now + .seconds(15)
        var role = ""
        var refreshToken = viewer.refreshToken
        while ContinuousClock.now < deadline {
            let session = try await people.identity.refreshSession(.init(refreshToken: refreshToken))
            refreshToken = session.refreshToken
            role = session.account?.role ?? ""
            if role == "applicant" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(role == "applicant")
        let hostSession = try await people.identity.refreshSession(.init(refreshToken: host.refreshToken))
        #expect(hostSession.account?.role == "host")
    }

    @Test func wizard_refusesBadSteps_withReasons() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let viewer = try await people.join()
        let bad: [Production.SaveApplicationRequest.Step?] = [
            nil,
            .aboutYou(.init(legalName: "Cher", age: 30)),
            .aboutYou(.init(legalName: "Robert'); DROP TABLE", age: 30)),
            .aboutYou(.init(legalName: "Ana Diaz", age: 17)),
            .story(.init(whyMe: "   ")),
            .story(.init(whyMe: "ok", quizAnswers: Dictionary(uniqueKeysWithValues: (0..<31).map { ("q\($0)", "a") }))),
            .look(.init(photoIDs: [], videoSelfieID: "v")),
            .look(.init(photoIDs: Array(repeating: "p", count: 7), videoSelfieID: "v")),
            .look(.init(photoIDs: ["p"], videoSelfieID: "")),
            .consent(.init(acknowledged: false)),
        ]
        for step in bad {
            let failure = await reason { _ = try await people.casting.saveApplication(.init(step: step), options: viewer.bearer) }
            #expect(failure?.code == .invalidArgument, "step \(String(describing: step))")
        }
        let failure = await reason { _ = try await people.casting.getMyApplication(.init(), options: viewer.bearer) }
        #expect(failure?.reason == "APPLICATION_NOT_FOUND", "nothing was saved by refused steps")
    }

    @Test func pipeline_movesInOrder_onlyForHosts_withEvents() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        let admin = try await people.join(as: "admin")
        let other = try await people.join()
        let (submitted, applicant) = try await people.apply(try await people.join())

        // P1: the owner reads their own; another member cannot see it exists; nobody but
        // producers reads the inbox or works the pipeline.
        #expect(try await people.casting.getApplication(.init(applicationID: submitted.id), options: applicant.bearer).id == submitted.id)
        var failure = await reason { _ = try await people.casting.getApplication(.init(applicationID: submitted.id), options: other.bearer) }
        #expect(failure?.reason == "APPLICATION_NOT_FOUND")
        failure = await reason { _ = try await people.casting.listApplications(.init(), options: applicant.bearer) }
        #expect(failure?.code == .permissionDenied)
        #expect(failure?.reason == "PRODUCER_ONLY")
        failure = await reason {
            _ = try await people.casting.setApplicationStatus(.init(applicationID: submitted.id, status: .selected),
                                                              options: applicant.bearer)
        }
        #expect(failure?.reason == "PRODUCER_ONLY")

        // P2: hosts and admins read the inbox.
        let inbox = try await people.casting.listApplications(.init(status: .pending, pageSize: 100), options: host.bearer)
        #expect(inbox.applications.contains { $0.id == submitted.id })
        #expect(try await people.casting.getApplication(.init(applicationID: submitted.id), options: admin.bearer).status == .pending)

        failure = await reason {
            _ = try await people.casting.setApplicationStatus(.init(applicationID: submitted.id, status: .selected), options: host.bearer)
        }
        #expect(failure?.reason == "OUT_OF_ORDER")
        for status in [Production.ApplicationStatus.reviewing, .reviewing, .shortlisted, .selected] {
            let moved = try await people.casting.setApplicationStatus(.init(applicationID: submitted.id, status: status),
                                                                      options: host.bearer)
            #expect(moved.status == status)
        }
        // reviewing twice was a retry: three changes, three events.
        #expect(try await people.events("ApplicationStatusChanged", about: submitted.id) == 3)
        failure = await reason {
            _ = try await people.casting.setApplicationStatus(.init(applicationID: submitted.id, status: .passed), options: host.bearer)
        }
        #expect(failure?.reason == "OUT_OF_ORDER", "a selected applicant is not passed over afterwards")
        failure = await reason {
            _ = try await people.casting.setApplicationStatus(.init(applicationID: "nope", status: .reviewing), options: host.bearer)
        }
        #expect(failure?.reason == "INVALID_ID")
    }

    @Test func assignToEpisode_castsOnlySelectedApplicants_ofTheSameApp() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let host = try await people.join(as: "host")
        let episode = try await people.episode(by: host)
        let (submitted, _) = try await people.apply(try await people.join())
        var failure = await reason {
            _ = try await people.casting.assignToEpisode(.init(applicationID: submitted.id, episodeID: episode.id), options: host.bearer)
        }
        #expect(failure?.reason == "NOT_SELECTED")

        let selected = try await people.join()
        let (cast, _) = try await people.cast(selected, in: episode, by: host)
        #expect(cast.episodeID == episode.id)
        let seen = try await people.episodes.getEpisode(.init(episodeID: episode.id), options: host.bearer)
        guard case .episode(let full)? = seen.view else { Issue.record("a host sees the whole episode"); return }
        #expect(full.castAccountIDs == [selected.id])

        // Another app's producer sees none of it.
        let eliteAdmin = try await people.join("elite", as: "admin")
        failure = await reason {
            _ = try await people.casting.getApplication(.init(applicationID: cast.id), options: eliteAdmin.bearer)
        }
        #expect(failure?.reason == "APPLICATION_NOT_FOUND")
        failure = await reason { _ = try await people.episodes.getEpisode(.init(episodeID: episode.id), options: eliteAdmin.bearer) }
        #expect(failure?.reason == "EPISODE_NOT_FOUND")
    }

    @Test func appsWithoutAShow_areRefused() async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        // The Unseen's members reach production for their points, not for a show.
        let unseen = try await people.join("unseen")
        var failure = await reason { _ = try await people.casting.getMyApplication(.init(), options: unseen.bearer) }
        #expect(failure?.code == .permissionDenied)
        #expect(failure?.reason == "APP_NOT_SUPPORTED")
        // Swivo runs no show either: a valid token of an app production does not serve is
        // PERMISSION_DENIED, not UNAUTHENTICATED WRONG_APP (which would make the client refresh).
        let swivo = try await people.join("swivo")
        failure = await reason { _ = try await people.casting.getMyApplication(.init(), options: swivo.bearer) }
        #expect(failure?.code == .permissionDenied)
        #expect(failure?.reason == "APP_NOT_SUPPORTED")
        failure = await reason { _ = try await people.casting.getMyApplication(.init()) }
        #expect(failure?.code == .unauthenticated)
    }

    /// production.proto and points.proto: another app's token is PERMISSION_DENIED, on every
    /// service production serves, whether the app has points (unseen) or nothing here at all.
    @Test(arguments: ["swivo", "momento", "unseen"])
    func anotherAppsToken_isPermissionDenied_appNotSupported(app: String) async throws {
        let people = try await ProductionPeople.make()
        defer { people.close() }
        let member = try await people.join(app)
        let calls: [(String, @Sendable () async throws -> Void)] = [
            ("Ledger", { _ = try await people.ledger.listLedgerEntries(.init(seasonID: UUID().uuidString.lowercased()),
                                                                         options: member.bearer) }),
            ("Casting", { _ = try await people.casting.getMyApplication(.init(), options: member.bearer) }),
            ("ListSeasons", { _ = try await people.episodes.listSeasons(.init(), options: member.bearer) }),
        ]
        for (name, call) in calls {
            let failure = await reason(of: call)
            #expect(failure?.code == .permissionDenied, "\(name)")
            #expect(failure?.reason == "APP_NOT_SUPPORTED", "\(name)")
        }
        guard app != "unseen" else { return }
        let points = await reason { _ = try await people.points.getBalance(.init(), options: member.bearer) }
        #expect(points?.code == .permissionDenied)
        #expect(points?.reason == "POINTS_APP_NOT_SUPPORTED")
    }
}
