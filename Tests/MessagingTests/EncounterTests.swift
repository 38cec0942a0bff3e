import Contracts
import Foundation
import Postgres
import RPC
import TestSupport
import Testing

/// The `.encounterServices` trait: identity, discovery, two messaging instances with the
/// encounter durations shortened (3 s to a meaningful interaction, 1.5 s to answer a
/// Convergence, 2 s in person, 2 s cooldown; each instance sweeps deadlines every 0.1 s), and
/// production following messaging's award events.
struct EncounterServicesTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let stack = try await DiscoveryStack.start(messagingInstances: 2, messagingEnvironment: [
            "RV_ENCOUNTER_MEANINGFUL_SECONDS": "3", "RV_ENCOUNTER_ACCEPT_SECONDS": "1.5",
            "RV_ENCOUNTER_HANDSHAKE_SECONDS": "10", "RV_ENCOUNTER_IN_PERSON_SECONDS": "2",
            "RV_ENCOUNTER_COOLDOWN_SECONDS": "2", "RV_ENCOUNTER_SWEEP_SECONDS": "0.1",
        ], withProduction: true)
        do {
            try await MessagingHarness.$stack.withValue(stack) { try await function() }
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}

extension Trait where Self == EncounterServicesTrait {
    static var encounterServices: Self { EncounterServicesTrait() }
}

/// Two anonymous Initiates of The Unseen, typed clients of both messaging instances and of
/// production's points.
struct EncounterWorld: Sendable {
    let members: MessagingMembers
    let encounters: [EncountersClient]
    let points: PointsClient

    static func make() async throws -> EncounterWorld {
        let stack = try MessagingHarness.running
        let members = try await MessagingMembers.make()
        let production = try #require(stack.production)
        return EncounterWorld(members: members, encounters: members.messaging.map { EncountersClient(client: $0.client) },
                              points: PointsClient(client: RPCClient(host: "127.0.0.1", port: production.port)))
    }

    func close() {
        points.client.close()
        members.close()
    }

    /// A new anonymous account of The Unseen (or of `app`).
    func initiate(_ app: String = "unseen") async throws -> Member {
        let session = try await members.identity.signInAnonymously(.init(app: app, deviceName: "tests"))
        return Member(id: try #require(session.account).id, app: app, token: session.accessToken,
                      refreshToken: session.refreshToken)
    }

    /// `a` starts an encounter on instance 0 and `b` joins it on instance 1; returns its id.
    func register(_ a: Member, _ b: Member) async throws -> String {
        let started = try await encounters[0].startEncounter(options: a.bearer)
        #expect(started.stage == .waiting)
        let joined = try await encounters[1].joinEncounter(.init(encounterID: started.encounterID), options: b.bearer)
        #expect(joined.stage == .chatting)
        #expect(joined.otherAccountID == a.id)
        #expect(!joined.openingPrompt.isEmpty)
        return started.encounterID
    }

    /// Both report three messages sent, and `proposer` proposes the Convergence as soon as the
    /// server finds the interaction meaningful.
    func proposeWhenMeaningful(_ id: String, _ proposer: Member, _ other: Member) async throws -> Encounters.Encounter {
        _ = try await encounters[0].reportMessages(.init(encounterID: id, sentCount: 3), options: proposer.bearer)
        _ = try await encounters[1].reportMessages(.init(encounterID: id, sentCount: 3), options: other.bearer)
        return try await retrying(while: "NOT_MEANINGFUL_YET") {
            try await encounters[0].proposeConvergence(.init(encounterID: id), options: proposer.bearer)
        }
    }

    /// From registering to the in-person container: `a` proposes, `b` accepts, `a` describes the
    /// meet-up, both arrive and submit the same code.
    func meetInPerson(_ a: Member, _ b: Member) async throws -> String {
        let id = try await register(a, b)
        _ = try await proposeWhenMeaningful(id, a, b)
        _ = try await encounters[1].answerConvergence(.init(encounterID: id, accept: true), options: b.bearer)
        _ = try await encounters[0].describeMeetup(.init(encounterID: id, description: "By the fountain, red scarf"),
                                                   options: a.bearer)
        _ = try await encounters[0].confirmArrival(.init(encounterID: id), options: a.bearer)
        _ = try await encounters[1].confirmArrival(.init(encounterID: id), options: b.bearer)
        _ = try await encounters[0].submitHandshakeCode(.init(encounterID: id, code: "7Q4X"), options: a.bearer)
        let verified = try await encounters[1].submitHandshakeCode(.init(encounterID: id, code: "7Q4X"), options: b.bearer)
        #expect(verified.stage == .inPerson)
        #expect(!verified.inPersonPrompt.isEmpty)
        return id
    }

    /// Waits until the in-person timer has ended (the encounter is closing).
    func waitUntilClosing(_ id: String, as member: Member) async throws {
        try await members.waitUntil("\(id) closes") {
            try await encounters[0].getEncounter(.init(encounterID: id), options: member.bearer).stage == .closing
        }
    }

    /// `member`'s points balance in production, once it reaches `points` (fails after 15 s).
    func waitForBalance(_ points: Int64, of member: Member) async throws -> Points.Balance {
        let deadline = ContinuousClock.now + .seconds(15)
        while true {
            let balance = try await self.points.getBalance(options: member.bearer)
            if balance.points >= points { return balance }
            guard ContinuousClock.now < deadline else {
                Issue.record("balance stayed at \(balance.points) points, expected \(points)")
                return balance
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The EncounterAwardEarned events messaging wrote for encounter `id`, as (account, reason).
    func awardEvents(_ id: String) async throws -> [(account: String, reason: Encounters.EncounterAwardReason)] {
        try await members.admin.withConnection { connection in
            try await connection.query("""
                SELECT payload FROM messaging.outbox WHERE type = 'EncounterAwardEarned' AND aggregate_id = $1 ORDER BY cursor
                """, [.text(id)]).map { row in
                let event = try Encounters.EncounterAwardEarned(serializedBytes: try row.decode(0, as: [UInt8].self))
                return (event.accountID, event.reason)
            }
        }
    }

    /// Calls `call` until it stops failing with `reason` (bounded: 15 s).
    func retrying<T: Sendable>(while reason: String, _ call: @Sendable () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(15)
        while true {
            do {
                return try await call()
            } catch let error as RPCError where error.reason == reason && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }
}

extension Realtime.RealtimeEvent {
    /// The encounter step this event delivers, if it is one.
    var encounterStep: Realtime.EncounterStep? {
        if case .encounterStep(let step)? = event { return step }
        return nil
    }
}

@Suite(.encounterServices)
struct EncounterTests {
    @Test func anEncounterFromFirstMessagesToResonanceGrantsEachAwardOnce() async throws {
        let world = try await EncounterWorld.make()
        defer { world.close() }
        let a = try await world.initiate()
        let b = try await world.initiate()
        let stream = try await RealtimeProbe.open(world.members.realtime[0], token: b.token)
        defer { stream.cancel() }

        let id = try await world.meetInPerson(a, b)
        // The timer runs: no artifact and no resonance yet.
        #expect(await reason { _ = try await world.encounters[0].submitArtifact(.init(encounterID: id, text: "We listened"),
                                                                                  options: a.bearer) }?.reason
                == "IN_PERSON_NOT_OVER")
        #expect(await reason { _ = try await world.encounters[0].submitResonance(.init(encounterID: id, score: 90),
                                                                                   options: a.bearer) }?.reason
                == "COOLDOWN_NOT_OVER")
        try await world.waitUntilClosing(id, as: a)

        let half = try await world.encounters[0].submitArtifact(.init(encounterID: id, text: "We listened"), options: a.bearer)
        #expect(half.myArtifactSubmitted && half.artifact.isEmpty)
        let saved = try await world.encounters[1].submitArtifact(.init(encounterID: id, text: " We listened "), options: b.bearer)
        #expect(saved.artifact == "We listened")

        let first = try await world.retrying(while: "COOLDOWN_NOT_OVER") {
            try await world.encounters[0].submitResonance(.init(encounterID: id, score: 90), options: a.bearer)
        }
        #expect(first.stage == .closing && first.myResonance == 90 && !first.multiplierGranted)
        let resolved = try await world.encounters[1].submitResonance(.init(encounterID: id, score: 80), options: b.bearer)
        #expect(resolved.stage == .resolved)
        #expect(resolved.multiplierGranted)

        // Connection bonus 10, session completion 50, resonance multiplier 100, each once.
        for member in [a, b] {
            let balance = try await world.waitForBalance(160, of: member)
            #expect(balance.points == 160)
            #expect(balance.entries == 3)
        }
        let events = try await world.awardEvents(id)
        #expect(events.count == 6)
        for member in [a, b] {
            #expect(Set(events.filter { $0.account == member.id }.map(\.reason.rawValue))
                    == [Encounters.EncounterAwardReason.connectionBonus.rawValue, Encounters.EncounterAwardReason.sessionCompletion.rawValue,
                        Encounters.EncounterAwardReason.resonanceMultiplier.rawValue])
        }

        // B's stream saw every step, in order, with the encounter as B sees it.
        let last = try await stream.first { $0.encounterStep?.step == "resolved" }
        #expect(last.encounterStep?.encounter?.multiplierGranted == true)
        #expect(last.encounterStep?.encounter?.startedByMe == false)
        let steps = stream.deliveries.compactMap(\.encounterStep).filter { $0.encounterID == id }.map(\.step)
        let expected = ["joined", "meaningful", "convergence_proposed", "convergence_accepted", "meetup_described", "arrived", "arrived",
                        "handshake_submitted", "handshake_verified", "in_person_completed", "artifact_submitted",
                        "artifact_saved", "resonance_submitted", "resonance_submitted", "resolved"]
        #expect(steps.filter { $0 != "messages_reported" } == expected)
    }

    /// realtime.proto lists `meaningful` among the steps: it reaches both streams once, after the
    /// last message when the messages come last, and from the sweep, with no call at all, when
    /// the clock does; a Convergence declined later does not repeat it.
    @Test(arguments: [true, false])
    func theMeaningfulStep_reachesBothSides_whicheverComesLast(messagesLast: Bool) async throws {
        let world = try await EncounterWorld.make()
        defer { world.close() }
        let a = try await world.initiate()
        let b = try await world.initiate()
        let streams = [try await RealtimeProbe.open(world.members.realtime[0], token: a.token),
                       try await RealtimeProbe.open(world.members.realtime[1], token: b.token)]
        defer { for stream in streams { stream.cancel() } }
        let id = try await world.register(a, b)
        _ = try await world.encounters[0].reportMessages(.init(encounterID: id, sentCount: 3), options: a.bearer)
        if messagesLast {
            try await world.members.waitUntil("meaningful_at passes") {
                let seen = try await world.encounters[1].getEncounter(.init(encounterID: id), options: b.bearer)
                return seen.serverTime!.microseconds >= seen.meaningfulAt!.microseconds
            }
            let last = try await world.encounters[1].reportMessages(.init(encounterID: id, sentCount: 3), options: b.bearer)
            #expect(last.meaningful)
        } else {
            let last = try await world.encounters[1].reportMessages(.init(encounterID: id, sentCount: 3), options: b.bearer)
            #expect(!last.meaningful, "3 s have not passed since joining")
        }
        for stream in streams {
            let step = try await stream.first { $0.encounterStep?.encounterID == id && $0.encounterStep?.step == "meaningful" }
            #expect(step.encounterStep?.encounter?.meaningful == true)
        }
        _ = try await world.encounters[0].proposeConvergence(.init(encounterID: id), options: a.bearer)
        _ = try await world.encounters[1].answerConvergence(.init(encounterID: id, accept: false), options: b.bearer)
        for stream in streams {
            try await stream.first { $0.encounterStep?.encounterID == id && $0.encounterStep?.step == "convergence_declined" }
            let steps = stream.deliveries.compactMap(\.encounterStep).filter { $0.encounterID == id }.map(\.step)
            #expect(steps == ["joined", "messages_reported", "messages_reported", "meaningful", "convergence_proposed",
                              "convergence_declined"])
        }
    }

    @Test func onlyItsTwoInitiatesTouchAnEncounter() async throws {
        let world = try await EncounterWorld.make()
        defer { world.close() }
        let a = try await world.initiate()
        let b = try await world.initiate()
        let stranger = try await world.initiate()
        let started = try await world.encounters[0].startEncounter(options: a.bearer)
        let id = started.encounterID
        #expect(await reason { _ = try await world.encounters[0].joinEncounter(.init(encounterID: id), options: a.bearer) }?.reason
                == "CANNOT_JOIN_OWN_ENCOUNTER")
        _ = try await world.encounters[1].joinEncounter(.init(encounterID: id), options: b.bearer)
        // Joining again is a no-op; a third account cannot join.
        #expect(try await world.encounters[0].joinEncounter(.init(encounterID: id), options: b.bearer).stage == .chatting)
        #expect(await reason { _ = try await world.encounters[0].joinEncounter(.init(encounterID: id),
                                                                                 options: stranger.bearer) }?.reason
                == "ENCOUNTER_FULL")
        for call in [
            { _ = try await world.encounters[0].getEncounter(.init(encounterID: id), options: stranger.bearer) },
            { _ = try await world.encounters[1].reportMessages(.init(encounterID: id, sentCount: 5), options: stranger.bearer) },
            { _ = try await world.encounters[0].proposeConvergence(.init(encounterID: id), options: stranger.bearer) },
            { _ = try await world.encounters[0].submitResonance(.init(encounterID: id, score: 90), options: stranger.bearer) },
        ] as [@Sendable () async throws -> Void] {
            let refusal = await reason(of: call)
            #expect(refusal?.code == .permissionDenied)
            #expect(refusal?.reason == "ENCOUNTER_NOT_A_PARTICIPANT")
        }
        #expect(await reason { _ = try await world.encounters[0].getEncounter(.init(encounterID: UUID().uuidString),
                                                                                options: a.bearer) }?.reason
                == "ENCOUNTER_NOT_FOUND")
        #expect(await reason { _ = try await world.encounters[0].getEncounter(.init(encounterID: "nope"), options: a.bearer) }?.reason
                == "INVALID_ENCOUNTER_ID")
        // Another app has no encounters; its members cannot read one either.
        let swivo = try await world.initiate("swivo")
        #expect(await reason { _ = try await world.encounters[0].startEncounter(options: swivo.bearer) }?.reason
                == "ENCOUNTER_APP_NOT_SUPPORTED")
        // The stranger's calls changed nothing.
        let seen = try await world.encounters[0].getEncounter(.init(encounterID: id), options: a.bearer)
        #expect(seen.theirMessages == 0 && seen.stage == .chatting && seen.otherAccountID == b.id)
    }

    @Test func theConvergenceWaitsForTimeAndThreeMessagesFromEachSide() async throws {
        let world = try await EncounterWorld.make()
        defer { world.close() }
        let a = try await world.initiate()
        let b = try await world.initiate()
        let id = try await world.register(a, b)
        _ = try await world.encounters[0].reportMessages(.init(encounterID: id, sentCount: 3), options: a.bearer)
        _ = try await world.encounters[1].reportMessages(.init(encounterID: id, sentCount: 3), options: b.bearer)
        // Enough messages, too early.
        let early = await reason { _ = try await world.encounters[0].proposeConvergence(.init(encounterID: id), options: a.bearer) }
        #expect(early?.code == .failedPrecondition)
        #expect(early?.reason == "NOT_MEANINGFUL_YET")

        // Counts only grow: a late, lower report leaves B at 3.
        let lower = try await world.encounters[1].reportMessages(.init(encounterID: id, sentCount: 1), options: b.bearer)
        #expect(lower.myMessages == 3)
        #expect(await reason { _ = try await world.encounters[1].reportMessages(.init(encounterID: id, sentCount: -1),
                                                                                  options: b.bearer) }?.reason
                == "INVALID_MESSAGE_COUNT")

        let c = try await world.initiate()
        let d = try await world.initiate()
        let other = try await world.register(c, d)
        _ = try await world.encounters[0].reportMessages(.init(encounterID: other, sentCount: 5), options: c.bearer)
        _ = try await world.encounters[1].reportMessages(.init(encounterID: other, sentCount: 2), options: d.bearer)
        // Once the time has passed, the first pair may propose; the second is past its time too,
        // but D has sent only two messages.
        let proposed = try await world.retrying(while: "NOT_MEANINGFUL_YET") {
            try await world.encounters[0].proposeConvergence(.init(encounterID: id), options: a.bearer)
        }
        #expect(proposed.stage == .proposed && proposed.proposedByMe)
        try await world.members.waitUntil("the second pair's time passes") {
            let seen = try await world.encounters[0].getEncounter(.init(encounterID: other), options: d.bearer)
            return seen.serverTime!.microseconds >= seen.meaningfulAt!.microseconds
        }
        #expect(try await !world.encounters[0].getEncounter(.init(encounterID: other), options: d.bearer).meaningful)
        do {
            _ = try await world.encounters[1].proposeConvergence(.init(encounterID: other), options: d.bearer)
            Issue.record("a Convergence with two messages from one side was accepted")
        } catch let error as RPCError {
            #expect(error.reason == "NOT_MEANINGFUL_YET")
            #expect(error.details["my_messages_needed"] == "1")
            #expect(error.details["their_messages_needed"] == "0")
            #expect(error.details["seconds_left"] == "0")
        }
        _ = try await world.encounters[1].reportMessages(.init(encounterID: other, sentCount: 3), options: d.bearer)
        #expect(try await world.encounters[1].proposeConvergence(.init(encounterID: other), options: d.bearer).stage == .proposed)
        // One Convergence at a time.
        #expect(await reason { _ = try await world.encounters[0].proposeConvergence(.init(encounterID: other),
                                                                                      options: c.bearer) }?.reason
                == "ENCOUNTER_WRONG_STAGE")
    }

    @Test func aLateAcceptIsRefusedAndTheProposerGetsCourageOnce() async throws {
        let world = try await EncounterWorld.make()
        defer { world.close() }
        let a = try await world.initiate()
        let b = try await world.initiate()
        let id = try await world.register(a, b)
        let proposed = try await world.proposeWhenMeaningful(id, a, b)
        #expect(await reason { _ = try await world.encounters[0].answerConvergence(.init(encounterID: id, accept: true),
                                                                                     options: a.bearer) }?.reason
                == "NOT_THE_INVITEE")
        // Past the deadline, by the server's clock (both instances sweep, every 0.1 s).
        let deadline = try #require(proposed.acceptDeadline).microseconds
        try await world.members.waitUntil("the accept window passes") {
            let seen = try await world.encounters[1].getEncounter(.init(encounterID: id), options: b.bearer)
            return seen.serverTime!.microseconds > deadline + 300_000
        }
        let late = await reason { _ = try await world.encounters[1].answerConvergence(.init(encounterID: id, accept: true),
                                                                                        options: b.bearer) }
        #expect(late?.code == .failedPrecondition)
        #expect(late?.reason == "ACCEPT_WINDOW_CLOSED")
        let seen = try await world.encounters[0].getEncounter(.init(encounterID: id), options: a.bearer)
        #expect(seen.stage == .chatting)
        #expect(seen.convergenceOutcome == .timedOut)
        #expect(!seen.reflectionPrompt.isEmpty)
        // The reflection prompt is the proposer's alone.
        #expect(try await world.encounters[1].getEncounter(.init(encounterID: id), options: b.bearer).reflectionPrompt.isEmpty)

        // A second proposal, declined: the courage award stays one.
        _ = try await world.encounters[0].proposeConvergence(.init(encounterID: id), options: a.bearer)
        let declined = try await world.encounters[1].answerConvergence(.init(encounterID: id, accept: false), options: b.bearer)
        #expect(declined.convergenceOutcome == .declined && declined.stage == .chatting)

        let courage = try await world.awardEvents(id).filter { $0.reason == .courage }
        #expect(courage.count == 1)
        #expect(courage.first?.account == a.id)
        #expect(try await world.waitForBalance(15, of: a).points == 15)
        #expect(try await world.waitForBalance(10, of: b).points == 10)
        let entries = try await world.points.listEntries(.init(), options: a.bearer).entries
        #expect(entries.filter { $0.reason == .courage }.count == 1)
    }

    @Test func mismatchedHandshakeCodesAreRefused() async throws {
        let world = try await EncounterWorld.make()
        defer { world.close() }
        let a = try await world.initiate()
        let b = try await world.initiate()
        let id = try await world.register(a, b)
        _ = try await world.proposeWhenMeaningful(id, a, b)
        _ = try await world.encounters[1].answerConvergence(.init(encounterID: id, accept: true), options: b.bearer)
        #expect(await reason { _ = try await world.encounters[1].confirmArrival(.init(encounterID: id), options: b.bearer) }?.reason
                == "MEETUP_NOT_DESCRIBED")
        #expect(await reason { _ = try await world.encounters[1].describeMeetup(.init(encounterID: id, description: "Blue coat"),
                                                                                  options: b.bearer) }?.reason
                == "NOT_THE_PROPOSER")
        _ = try await world.encounters[0].describeMeetup(.init(encounterID: id, description: "By the fountain"), options: a.bearer)
        // No code before both have arrived.
        _ = try await world.encounters[0].confirmArrival(.init(encounterID: id), options: a.bearer)
        #expect(await reason { _ = try await world.encounters[0].submitHandshakeCode(.init(encounterID: id, code: "1111"),
                                                                                       options: a.bearer) }?.reason
                == "ENCOUNTER_WRONG_STAGE")
        let arrived = try await world.encounters[1].confirmArrival(.init(encounterID: id), options: b.bearer)
        #expect(arrived.iArrived && arrived.theyArrived && arrived.handshakeDeadline != nil)

        _ = try await world.encounters[0].submitHandshakeCode(.init(encounterID: id, code: "1111"), options: a.bearer)
        let mismatch = await reason { _ = try await world.encounters[1].submitHandshakeCode(.init(encounterID: id, code: "2222"),
                                                                                              options: b.bearer) }
        #expect(mismatch?.code == .failedPrecondition)
        #expect(mismatch?.reason == "HANDSHAKE_CODE_MISMATCH")
        let cleared = try await world.encounters[0].getEncounter(.init(encounterID: id), options: a.bearer)
        #expect(cleared.stage == .meeting && !cleared.myCodeSubmitted)
        #expect(await reason { _ = try await world.encounters[0].submitHandshakeCode(.init(encounterID: id, code: "12"),
                                                                                       options: a.bearer) }?.reason
                == "INVALID_HANDSHAKE_CODE")
        // Both submit the same code again: verified.
        _ = try await world.encounters[1].submitHandshakeCode(.init(encounterID: id, code: "3333"), options: b.bearer)
        let verified = try await world.encounters[0].submitHandshakeCode(.init(encounterID: id, code: "3333"), options: a.bearer)
        #expect(verified.stage == .inPerson)
        #expect(verified.inPersonEndsAt != nil)
    }

    @Test func resonanceBelowEightyGrantsNoMultiplierAndAScoreIsGivenOnce() async throws {
        let world = try await EncounterWorld.make()
        defer { world.close() }
        let a = try await world.initiate()
        let b = try await world.initiate()
        let id = try await world.meetInPerson(a, b)
        try await world.waitUntilClosing(id, as: b)
        _ = try await world.retrying(while: "COOLDOWN_NOT_OVER") {
            try await world.encounters[0].submitResonance(.init(encounterID: id, score: 95), options: a.bearer)
        }
        let again = await reason { _ = try await world.encounters[1].submitResonance(.init(encounterID: id, score: 10),
                                                                                       options: a.bearer) }
        #expect(again?.code == .alreadyExists)
        #expect(again?.reason == "RESONANCE_ALREADY_SUBMITTED")
        #expect(await reason { _ = try await world.encounters[1].submitResonance(.init(encounterID: id, score: 101),
                                                                                   options: b.bearer) }?.reason
                == "INVALID_RESONANCE_SCORE")
        let resolved = try await world.encounters[1].submitResonance(.init(encounterID: id, score: 79), options: b.bearer)
        #expect(resolved.stage == .resolved)
        #expect(!resolved.multiplierGranted)
        #expect(resolved.myResonance == 79 && resolved.theirResonanceSubmitted)
        #expect(await reason { _ = try await world.encounters[0].submitResonance(.init(encounterID: id, score: 95),
                                                                                   options: b.bearer) }?.reason
                == "RESONANCE_ALREADY_SUBMITTED")

        // Connection bonus and session completion only.
        for member in [a, b] { #expect(try await world.waitForBalance(60, of: member).points == 60) }
        let events = try await world.awardEvents(id)
        #expect(events.count == 4)
        #expect(!events.contains { $0.reason == .resonanceMultiplier })
    }

    @Test func aDeletedAccountTakesItsEncountersWithIt() async throws {
        let world = try await EncounterWorld.make()
        defer { world.close() }
        let a = try await world.initiate()
        let b = try await world.initiate()
        let id = try await world.register(a, b)
        _ = try await world.members.identity.deleteAccount(.init(), options: a.bearer)
        try await world.members.waitUntil("messaging forgets \(id)") {
            await reason { _ = try await world.encounters[1].getEncounter(.init(encounterID: id), options: b.bearer) }?.reason
                == "ENCOUNTER_NOT_FOUND"
        }
    }

    @Test func concurrentAnswersFromBothDevicesAcceptOnce() async throws {
        let world = try await EncounterWorld.make()
        defer { world.close() }
        let a = try await world.initiate()
        let b = try await world.initiate()
        let stream = try await RealtimeProbe.open(world.members.realtime[1], token: a.token)
        defer { stream.cancel() }
        let id = try await world.register(a, b)
        _ = try await world.encounters[0].reportMessages(.init(encounterID: id, sentCount: 3), options: a.bearer)
        _ = try await world.encounters[1].reportMessages(.init(encounterID: id, sentCount: 3), options: b.bearer)
        try await world.members.waitUntil("the interaction is meaningful") {
            try await world.encounters[0].getEncounter(.init(encounterID: id), options: a.bearer).meaningful
        }
        // Both propose at once: one Convergence.
        async let byA = reason { _ = try await world.encounters[0].proposeConvergence(.init(encounterID: id), options: a.bearer) }
        async let byB = reason { _ = try await world.encounters[1].proposeConvergence(.init(encounterID: id), options: b.bearer) }
        let proposals = await [byA, byB]
        #expect(proposals.filter { $0 == nil }.count == 1)
        #expect(proposals.compactMap { $0?.reason } == ["ENCOUNTER_WRONG_STAGE"])
        let pending = try await world.encounters[0].getEncounter(.init(encounterID: id), options: a.bearer)
        let (proposer, invitee) = pending.proposedByMe ? (a, b) : (b, a)

        // The invitee's two devices accept at once, on both instances: both see it accepted, once.
        async let first = world.encounters[0].answerConvergence(.init(encounterID: id, accept: true), options: invitee.bearer)
        async let second = world.encounters[1].answerConvergence(.init(encounterID: id, accept: true), options: invitee.bearer)
        let answers = try await [first, second]
        #expect(answers.allSatisfy { $0.stage == .meeting && $0.convergenceOutcome == .accepted })
        _ = try await world.encounters[0].describeMeetup(.init(encounterID: id, description: "At the corner"),
                                                         options: proposer.bearer)
        try await stream.first { $0.encounterStep?.step == "meetup_described" }
        let steps = stream.deliveries.compactMap(\.encounterStep).filter { $0.encounterID == id }.map(\.step)
        #expect(steps.filter { $0 == "convergence_accepted" }.count == 1)
        #expect(steps.filter { $0 == "convergence_proposed" }.count == 1)
    }
}
