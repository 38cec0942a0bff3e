import Contracts
import Foundation
import GatewayClient
import Synchronization

/// New ÉLITE pairs liking each other through the faults: the second like's answer carries the
/// match. A pair whose likes failed likes again after the load (a swipe is idempotent).
final class MatchLoad: Sendable {
    /// Two members and the match their likes acknowledged (nil until one did).
    struct Attempt: Sendable {
        let a: Member
        let b: Member
        var matchID: String?
    }

    private let attempts = Mutex<[Attempt]>([])
    private let population: Population

    init(population: Population) { self.population = population }

    /// `a` likes `b`, then `b` likes `a`; the second answer's match. Discovery learns of new
    /// accounts from identity's events: USER_NOT_FOUND is waited out.
    static func match(_ a: Member, _ b: Member) async throws -> String {
        _ = try await Population.persisting(while: ["USER_NOT_FOUND"]) { try await a.client.discovery.swipe(accountID: b.accountID, .like) }
        let answer = try await Population.persisting(while: ["USER_NOT_FOUND"]) {
            try await b.client.discovery.swipe(accountID: a.accountID, .like)
        }
        guard let match = answer.match else { throw ChaosFailure("two likes made no match") }
        return match.matchID
    }

    /// A new pair every `interval` until `end`; their setup is not audited, their likes are.
    func run(until end: ContinuousClock.Instant, interval: Duration) async {
        while ContinuousClock.now < end {
            if let a = try? await population.eliteMember(), let b = try? await population.eliteMember() {
                var attempt = Attempt(a: a, b: b)
                attempt.matchID = try? await Self.once(a, b)
                attempts.withLock { $0.append(attempt) }
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// The two likes once each (the client's own retries aside).
    private static func once(_ a: Member, _ b: Member) async throws -> String {
        _ = try await a.client.discovery.swipe(accountID: b.accountID, .like)
        guard let match = try await b.client.discovery.swipe(accountID: a.accountID, .like).match else {
            throw ChaosFailure("two likes made no match")
        }
        return match.matchID
    }

    /// Likes again for every pair without an acknowledged match; returns how many.
    func retryFailed() async -> Int {
        let indices = attempts.withLock { Array($0.indices) }
        var retried = 0
        for index in indices {
            let attempt = attempts.withLock { $0[index] }
            guard attempt.matchID == nil else { continue }
            let matchID = try? await Self.match(attempt.a, attempt.b)
            attempts.withLock { $0[index].matchID = matchID }
            retried += 1
        }
        return retried
    }

    var all: [Attempt] { attempts.withLock { $0 } }

    func close() { all.forEach { $0.a.client.close(); $0.b.client.close() } }
}

/// The harness's own failure (a setup that could not be done), not a finding.
struct ChaosFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
