import Contracts
import Foundation
import Postgres
import Runtime

/// Messaging's encounter awards turned into points entries (each event applied once by its
/// `EventConsumer`; the entry is unique per account, encounter and reason besides, so a repeat
/// grants nothing). Amounts are production's (`PointsStore.points(for:)`); apps without points
/// here are skipped.
struct EncounterAwards: Sendable {
    static let source = "messaging"
    static let eventTypes = ["EncounterAwardEarned"]
    /// Where messaging answers (host:port); unset, production grants no encounter awards from events.
    static let addressVariable = "RV_MESSAGING_ADDRESS"

    let pointsApps: Set<String>

    func apply(_ event: Events.Event, on connection: Connection) async throws {
        guard event.type == "EncounterAwardEarned" else { return }
        let earned = try Encounters.EncounterAwardEarned(serializedBytes: event.payload)
        guard pointsApps.contains(earned.app), let account = UUID(uuidString: earned.accountID),
              (1...100).contains(earned.encounterID.count) else { return }
        let reason: Points.PointsReason
        switch earned.reason {
        case .connectionBonus: reason = .connectionBonus
        case .courage: reason = .courage
        case .sessionCompletion: reason = .sessionCompletion
        case .resonanceMultiplier: reason = .resonanceMultiplier
        default: return
        }
        guard let points = PointsStore.points(for: reason) else { return }
        _ = try await PointsStore.award(app: earned.app, account: account, encounter: earned.encounterID, reason: reason,
                                        points: points, by: Self.source, on: connection)
    }
}
