import Contracts
import Foundation
import GatewayClient
import Synchronization

/// A FirstDate host records an expense on an episode every `interval`, each with a description
/// of its own. AddLedgerEntry is not idempotent (the client never retries it): an entry whose
/// answer was lost may exist once, never twice; an acknowledged one exactly once.
final class LedgerLoad: Sendable {
    struct Entry: Sendable {
        let description: String
        var entryID: String?
    }

    let episodeID: String
    private let host: GatewayClient
    private let entries = Mutex<[Entry]>([])

    private init(host: GatewayClient, episodeID: String) {
        self.host = host
        self.episodeID = episodeID
    }

    static func prepare(_ population: Population) async throws -> LedgerLoad {
        let host = try population.client("firstdate")
        let account = try await host.identity.signUpWithEmail(Population.email("chaos-host"), password: Population.password)
        try await population.stack.grantRole("host", to: account.id, app: "firstdate")
        _ = try await host.identity.refreshSession()
        let season = try await Population.persisting(while: ["SEASON_EXISTS"]) {
            try await host.production.createSeason(number: Int32.random(in: 1...999), title: "Chaos")
        }
        let episode = try await host.production.createEpisode(seasonID: season.id, number: 1, title: "Under load")
        return LedgerLoad(host: host, episodeID: episode.id)
    }

    func run(until end: ContinuousClock.Instant, interval: Duration) async {
        while ContinuousClock.now < end {
            var entry = Entry(description: "chaos-\(UUID().uuidString)")
            let request = Production.AddLedgerEntryRequest(type: .expense, category: "wardrobe",
                                                           amount: .init(amountMinor: 1_00, currency: "USD"), episodeID: episodeID,
                                                           description: entry.description)
            entry.entryID = try? await host.production.addLedgerEntry(request).id
            entries.withLock { $0.append(entry) }
            try? await Task.sleep(for: interval)
        }
    }

    var all: [Entry] { entries.withLock { $0 } }

    func close() { host.close() }
}
