import Contracts
import Foundation
import GatewayClient
import Synchronization

/// ÉLITE pairs who matched before the faults: one member sends a message every `interval`, each
/// with a client message id of its own; the other holds a realtime stream (resumed by the
/// gateway client from its cursor whenever it breaks) and counts what arrives by client id.
/// A send that failed is sent again with the same id after the load, as an app's outbox does.
final class ChatLoad: Sendable {
    struct Pair: Sendable {
        let sender: Member
        let receiver: Member
        let conversationID: String
    }

    /// One message the load sent, and how its send ended.
    struct Sent: Sendable {
        let clientMessageID: String
        let pair: Int
        var messageID: String?
        var failure: String?
    }

    let pairs: [Pair]
    private let sent = Mutex<[Sent]>([])
    private let arrived = Mutex<[String: Int]>([:])
    private let streams = Mutex<[Task<Void, Never>]>([])

    private init(pairs: [Pair]) { self.pairs = pairs }

    /// `count` pairs, matched and listening.
    static func prepare(_ population: Population, pairs count: Int) async throws -> ChatLoad {
        var pairs: [Pair] = []
        for _ in 0..<count {
            let (a, b) = (try await population.eliteMember(), try await population.eliteMember())
            let matchID = try await MatchLoad.match(a, b)
            _ = try await Population.persisting(while: ["CONVERSATION_NOT_FOUND"]) { try await a.client.messaging.conversation(matchID) }
            pairs.append(Pair(sender: a, receiver: b, conversationID: matchID))
        }
        let load = ChatLoad(pairs: pairs)
        for pair in pairs { load.listen(pair.receiver) }
        return load
    }

    private func listen(_ member: Member) {
        let stream = member.client.realtime.events()
        let task = Task {
            do {
                for try await event in stream {
                    if case .message(let received)? = event.event, let message = received.message {
                        self.arrived.withLock { $0[message.clientMessageID, default: 0] += 1 }
                    }
                }
            } catch {
                FileHandle.standardError.write(Data("chaos: a realtime stream ended: \(error)\n".utf8))
            }
        }
        streams.withLock { $0.append(task) }
    }

    /// Sends until `end`, every `interval` per pair.
    func run(until end: ContinuousClock.Instant, interval: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            for index in pairs.indices {
                group.addTask {
                    while ContinuousClock.now < end {
                        await self.send(pair: index)
                        try? await Task.sleep(for: interval)
                    }
                }
            }
        }
    }

    private func send(pair index: Int) async {
        let pair = pairs[index]
        let clientMessageID = UUID().uuidString
        var record = Sent(clientMessageID: clientMessageID, pair: index)
        do {
            let answer = try await pair.sender.client.messaging.send(text: "chaos \(clientMessageID.prefix(8))", in: pair.conversationID,
                                                                     clientMessageID: clientMessageID)
            record.messageID = answer.message?.messageID
        } catch {
            record.failure = "\(error.code)"
        }
        sent.withLock { $0.append(record) }
    }

    /// Sends every failed message again with its client id (until acknowledged, up to a minute
    /// each); returns how many were sent again.
    func resendFailed() async -> Int {
        let indices = sent.withLock { Array($0.indices) }
        var resent = 0
        for index in indices {
            let record = sent.withLock { $0[index] }
            guard record.messageID == nil else { continue }
            let pair = pairs[record.pair]
            let answer = try? await Population.persisting {
                try await pair.sender.client.messaging.send(text: "chaos \(record.clientMessageID.prefix(8))", in: pair.conversationID,
                                                            clientMessageID: record.clientMessageID)
            }
            sent.withLock { $0[index].messageID = answer?.message?.messageID }
            resent += 1
        }
        return resent
    }

    var messages: [Sent] { sent.withLock { $0 } }
    var arrivals: [String: Int] { arrived.withLock { $0 } }

    func close() {
        streams.withLock { $0.forEach { $0.cancel() } }
    }
}
