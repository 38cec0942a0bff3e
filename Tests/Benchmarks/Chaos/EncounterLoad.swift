import Contracts
import Foundation
import GatewayClient
import Synchronization

/// The Unseen's points through the faults: every `interval` two new anonymous members meet, one
/// starting an encounter and the other joining it. An acknowledged join earns each of them the
/// connection bonus once (messaging's award, production's points ledger applying its event):
/// the audit wants one points entry per member and encounter, never two.
final class EncounterLoad: Sendable {
    struct Meeting: Sendable {
        var encounterID: String?
        var starterID: String?
        var joinerID: String?
        var joined = false
    }

    private let meetings = Mutex<[Meeting]>([])
    private let population: Population

    init(population: Population) { self.population = population }

    func run(until end: ContinuousClock.Instant, interval: Duration) async {
        while ContinuousClock.now < end {
            await meet()
            try? await Task.sleep(for: interval)
        }
    }

    /// One meeting, each call once (the client's own retries aside); what it got to.
    private func meet() async {
        var meeting = Meeting()
        guard let starter = try? population.client("unseen"), let joiner = try? population.client("unseen") else { return }
        defer {
            starter.close()
            joiner.close()
        }
        meeting.starterID = try? await starter.identity.signInAnonymously().id
        meeting.joinerID = try? await joiner.identity.signInAnonymously().id
        if meeting.starterID != nil, meeting.joinerID != nil {
            meeting.encounterID = try? await starter.encounters.start().encounterID
            if let id = meeting.encounterID {
                meeting.joined = (try? await joiner.encounters.join(id)) != nil
            }
        }
        meetings.withLock { $0.append(meeting) }
    }

    /// Encounters whose join was acknowledged, with their two members.
    var joined: [(encounterID: String, members: [String])] {
        meetings.withLock { meetings in
            meetings.compactMap { meeting in
                guard meeting.joined, let id = meeting.encounterID, let starter = meeting.starterID,
                      let joiner = meeting.joinerID else { return nil }
                return (id, [starter, joiner])
            }
        }
    }

    /// Every encounter started, joined or not (a join whose answer was lost may have happened).
    var started: [String] { meetings.withLock { $0.compactMap(\.encounterID) } }
}
