import Contracts
import Foundation
import GatewayClient
import GatewayClientHTTP2
import RPC
import TestSupport
import Testing

/// The Unseen's encounter as the app meets it: two `GatewayClient`s through the nginx edge to
/// the real identity, messaging (durations shortened) and production executables.
@Suite(.serialized) struct EndToEndEncounterTests {
    static func initiate(_ edge: NginxEdge) async throws -> (GatewayClient, Identity.Account) {
        let client = try GatewayClient(configuration: GatewayConfiguration(host: "127.0.0.1", port: edge.port, security: .plaintext,
                                                                           app: "unseen", deviceName: "e2e"),
                                       tokenStore: InMemoryTokenStore())
        return (client, try await client.identity.signInAnonymously())
    }

    /// Calls `call` until it stops failing with `reason` (bounded: 15 s).
    static func retrying<T: Sendable>(while reason: Encounters.EncounterErrorReason,
                                      _ call: @Sendable () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(15)
        while true {
            do {
                return try await call()
            } catch let error as GatewayError where error.encounterReason == reason && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    @Test func twoInitiatesGoFromFirstMessagesToResonance_andSeeTheirPoints_andALateAcceptIsRefused() async throws {
        let stack = try await DiscoveryStack.start(withEdge: true, messagingInstances: 1, messagingEnvironment: [
            "RV_ENCOUNTER_MEANINGFUL_SECONDS": "1", "RV_ENCOUNTER_ACCEPT_SECONDS": "4",
            "RV_ENCOUNTER_IN_PERSON_SECONDS": "1", "RV_ENCOUNTER_COOLDOWN_SECONDS": "1", "RV_ENCOUNTER_SWEEP_SECONDS": "0.1",
        ], withProduction: true)
        do {
            try await Self.run(try #require(stack.edge))
            try await Self.lateAccept(try #require(stack.edge))
        } catch {
            print(stack.logs)
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    static func run(_ edge: NginxEdge) async throws {
        let (a, accountA) = try await initiate(edge)
        let (b, accountB) = try await initiate(edge)
        let started = try await a.encounters.start()
        let id = started.encounterID
        let joined = try await b.encounters.join(id)
        #expect(joined.otherAccountID == accountA.id)
        _ = try await a.encounters.reportMessages(3, in: id)
        do {
            _ = try await a.encounters.proposeConvergence(id)
            Issue.record("a Convergence before any message from the other side was accepted")
        } catch {
            #expect(error.encounterReason == .notMeaningfulYet)
        }
        _ = try await b.encounters.reportMessages(3, in: id)
        let proposed = try await retrying(while: .notMeaningfulYet) { try await a.encounters.proposeConvergence(id) }
        #expect(proposed.stage == .proposed)
        #expect(try await b.encounters.answerConvergence(id, accept: true).stage == .meeting)
        _ = try await a.encounters.describeMeetup("By the fountain, red scarf", in: id)
        #expect(try await b.encounters.encounter(id).meetupDescription == "By the fountain, red scarf")
        _ = try await a.encounters.confirmArrival(id)
        _ = try await b.encounters.confirmArrival(id)
        _ = try await a.encounters.submitHandshakeCode("K9F2", in: id)
        do {
            _ = try await b.encounters.submitHandshakeCode("K9F3", in: id)
            Issue.record("a mismatched handshake code was accepted")
        } catch {
            #expect(error.encounterReason == .handshakeCodeMismatch)
        }
        _ = try await a.encounters.submitHandshakeCode("K9F2", in: id)
        #expect(try await b.encounters.submitHandshakeCode("K9F2", in: id).stage == .inPerson)

        _ = try await retrying(while: .inPersonNotOver) { try await a.encounters.submitArtifact("We were braver together", in: id) }
        #expect(try await b.encounters.submitArtifact("We were braver together", in: id).artifact == "We were braver together")
        _ = try await retrying(while: .cooldownNotOver) { try await a.encounters.submitResonance(88, in: id) }
        let resolved = try await b.encounters.submitResonance(92, in: id)
        #expect(resolved.stage == .resolved && resolved.multiplierGranted)

        // 10 connection + 50 completion + 100 multiplier, through production's ledger.
        for (client, account) in [(a, accountA), (b, accountB)] {
            let deadline = ContinuousClock.now + .seconds(15)
            var balance = try await client.points.balance()
            while balance.points < 160 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                balance = try await client.points.balance()
            }
            #expect(balance.points == 160, "points of \(account.id)")
            #expect(balance.entries == 3)
        }
    }

    /// An accept after the window (by the server's clock) is refused with its reason; the
    /// Convergence counts as timed out and only the proposer gets the reflection prompt.
    static func lateAccept(_ edge: NginxEdge) async throws {
        let (c, _) = try await initiate(edge)
        let (d, _) = try await initiate(edge)
        let id = try await c.encounters.start().encounterID
        _ = try await d.encounters.join(id)
        _ = try await c.encounters.reportMessages(3, in: id)
        _ = try await d.encounters.reportMessages(3, in: id)
        let proposed = try await retrying(while: .notMeaningfulYet) { try await c.encounters.proposeConvergence(id) }
        let deadline = try #require(proposed.acceptDeadline).microseconds
        let waitUntil = ContinuousClock.now + .seconds(15)
        while try await d.encounters.encounter(id).serverTime.map({ $0.microseconds <= deadline + 300_000 }) ?? true {
            guard ContinuousClock.now < waitUntil else {
                Issue.record("the accept window never passed by the server's clock")
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        do {
            _ = try await d.encounters.answerConvergence(id, accept: true)
            Issue.record("an accept after the window was taken")
        } catch {
            #expect(error.code == .failedPrecondition && error.encounterReason == .acceptWindowClosed)
        }
        let proposer = try await c.encounters.encounter(id)
        #expect(proposer.convergenceOutcome == .timedOut && proposer.stage == .chatting)
        #expect(!proposer.reflectionPrompt.isEmpty)
        #expect(try await d.encounters.encounter(id).reflectionPrompt.isEmpty)
    }
}
