import Contracts
import Foundation
import GatewayClient
import RPC
import TestSupport

/// The Unseen: two anonymous initiates meet in an encounter, pass the meaningful-interaction
/// threshold, one proposes the Convergence and the other accepts, both arrive and verify the
/// handshake, leave an artifact and their resonance, and each sees the points production's
/// ledger awarded. Crosses identity, messaging (encounters, push), production (points) and APNs.
/// Needs messaging started with `Journeys.messagingEnvironment` (stages of a second).
package struct UnseenJourney {
    let context: JourneyContext

    package init(context: JourneyContext) { self.context = context }

    package func run() async throws {
        let clients = Clients()
        defer { clients.close() }
        let (a, b) = (try context.client("unseen", in: clients), try context.client("unseen", in: clients))
        let accountA = try await a.identity.signInAnonymously()
        let accountB = try await b.identity.signInAnonymously()
        let tokenA = JourneyContext.deviceToken()
        _ = try await a.devices.registerPushToken(tokenA, platform: .apns, environment: .production, deviceID: "unseen-a")

        let id = try await a.encounters.start().encounterID
        let joined = try await b.encounters.join(id)
        try check(joined.otherAccountID == accountA.id, "the joiner meets the initiate who started")
        try await context.push(to: tokenA, category: "encounter_step")

        // The threshold: messages from one side only are not yet meaningful.
        _ = try await a.encounters.reportMessages(3, in: id)
        try await refused(.failedPrecondition, "NOT_MEANINGFUL_YET", "a Convergence before the other side wrote") {
            _ = try await a.encounters.proposeConvergence(id)
        }
        _ = try await b.encounters.reportMessages(3, in: id)
        let proposed = try await context.retrying(while: "NOT_MEANINGFUL_YET") { try await a.encounters.proposeConvergence(id) }
        try check(proposed.stage == .proposed, "the Convergence is proposed")
        try check(try await b.encounters.answerConvergence(id, accept: true).stage == .meeting, "accepted, they are to meet")

        // Arrival and the handshake (a wrong code is refused).
        _ = try await a.encounters.describeMeetup("By the fountain, red scarf", in: id)
        try check(try await b.encounters.encounter(id).meetupDescription == "By the fountain, red scarf", "B reads where to meet")
        _ = try await a.encounters.confirmArrival(id)
        _ = try await b.encounters.confirmArrival(id)
        _ = try await a.encounters.submitHandshakeCode("K9F2", in: id)
        try await refused(.failedPrecondition, "HANDSHAKE_CODE_MISMATCH", "a handshake code that differs") {
            _ = try await b.encounters.submitHandshakeCode("K9F3", in: id)
        }
        _ = try await a.encounters.submitHandshakeCode("K9F2", in: id)
        try check(try await b.encounters.submitHandshakeCode("K9F2", in: id).stage == .inPerson, "the handshake puts them in person")

        // Resonance, after the in-person time and the cool-down.
        _ = try await context.retrying(while: "IN_PERSON_NOT_OVER") { try await a.encounters.submitArtifact("We were braver together", in: id) }
        _ = try await b.encounters.submitArtifact("We were braver together", in: id)
        _ = try await context.retrying(while: "COOLDOWN_NOT_OVER") { try await a.encounters.submitResonance(88, in: id) }
        let resolved = try await b.encounters.submitResonance(92, in: id)
        try check(resolved.stage == .resolved && resolved.multiplierGranted, "high resonance on both sides grants the multiplier")

        // Points: 10 for the connection, 50 for completing, 100 for the multiplier, each side.
        for (client, account) in [(a, accountA), (b, accountB)] {
            let balance = try await context.eventually("\(account.id)'s points", { try await client.points.balance() }) {
                $0.points >= 160
            }
            try check(balance.points == 160 && balance.entries == 3, "160 points in three entries, not \(balance.points) in \(balance.entries)")
        }
    }
}
