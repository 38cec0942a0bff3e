import Contracts
import Foundation
import Postgres
import RPC
import Synchronization
import TestSupport

/// Messaging's send → realtime delivery, run when `--messaging-port` is given: `members`
/// anonymous accounts of `app` signed in through identity and paired into conversations (seeded
/// with SQL as discovery's matches would open them, through `--admin-url`), each with its
/// realtime stream open; then for each sender count, that many concurrent senders send text
/// messages (each member to their match) for the run's seconds. Reports messages/s accepted and,
/// for every message, the time from the send call to its arrival on the recipient's stream.
/// Our own client holds the streams, so the figure is the server's rather than a slow client's.
/// Counts what was lost (accepted, never arrived), duplicated (arrived twice) and out of order.
struct RealtimeFanOutBench {
    let identity: [IdentityClient]
    let messaging: [RPCClient]
    let adminURL: String
    let app: String
    let members: Int
    let seconds: Int

    struct Result {
        var senders: Int
        var accepted: Int
        var failed: Int
        var seconds: Double
        var delivered: Int
        var undelivered: Int
        /// Arrivals of a message already delivered to that stream.
        var duplicated: Int
        /// Arrivals on a stream with a sequence not above the last one it received from the match.
        var outOfOrder: Int
        var latency: LatencySummary
        var serverCPU: Double?
        var postgresCPU: Double?
        /// This load generator's own CPU (it holds the streams and sends).
        var clientCPU: Double?
        var firstError: String?
    }

    /// Send instants (nanoseconds) by client message id, the latencies of arrivals, what
    /// arrived twice or out of order, and how many streams are ready.
    final class Ledger: Sendable {
        private struct Books {
            var sent: [String: UInt64] = [:]
            /// Every message delivered so far (kept across runs: a late duplicate still counts).
            var delivered: Set<String> = []
            var latencies: [UInt64] = []
            var duplicated = 0
            var outOfOrder = 0
        }
        private let books = Mutex(Books())
        private let readyStreams = Atomic<Int>(0)
        private let endedStreams = Atomic<Int>(0)

        func streamReady() { readyStreams.add(1, ordering: .relaxed) }
        var ready: Int { readyStreams.load(ordering: .relaxed) }
        func streamEnded() { endedStreams.add(1, ordering: .relaxed) }
        var ended: Int { endedStreams.load(ordering: .relaxed) }

        func sent(_ key: String, at instant: UInt64) { books.withLock { $0.sent[key] = instant } }
        func forget(_ key: String) { books.withLock { _ = $0.sent.removeValue(forKey: key) } }
        func arrived(_ key: String, at instant: UInt64, inOrder: Bool) {
            books.withLock { books in
                if !inOrder { books.outOfOrder += 1 }
                if let sent = books.sent.removeValue(forKey: key) {
                    books.latencies.append(instant - sent)
                    books.delivered.insert(key)
                } else if !books.delivered.insert(key).inserted {
                    books.duplicated += 1
                }
            }
        }
        /// The latencies so far, how many sends have not arrived, duplicates and disorder; starts
        /// a new run.
        func take() -> (latencies: [UInt64], undelivered: Int, duplicated: Int, outOfOrder: Int) {
            books.withLock { books in
                defer {
                    books.sent = [:]
                    books.latencies = []
                    books.duplicated = 0
                    books.outOfOrder = 0
                }
                return (books.latencies, books.sent.count, books.duplicated, books.outOfOrder)
            }
        }
    }

    struct Member: Sendable {
        var id: String
        var token: String
        var conversation: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func run(senderCounts: [Int], serverPID: Int32?, postgresPID: Int32?) async throws -> [Result] {
        let people = try await signIn()
        try await seedConversations(people)
        let ledger = Ledger()
        let streams = Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, member) in people.enumerated() {
                    group.addTask {
                        await Self.follow(member, client: RealtimeClient(client: messaging[index % messaging.count]),
                                          ledger: ledger)
                    }
                }
            }
        }
        defer { streams.cancel() }
        let deadline = ContinuousClock.now + .seconds(120)
        while ledger.ready < people.count {
            guard ContinuousClock.now < deadline else {
                throw Failure(description: "only \(ledger.ready) of \(people.count) realtime streams became ready")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        var results: [Result] = []
        for senders in senderCounts {
            let cpuBefore = ProcessCPU.seconds(pid: serverPID)
            let postgresBefore = postgresPID.map { ProcessCPU.postgresSeconds(postmaster: $0) }
            let clientBefore = ProcessCPU.seconds(pid: nil)
            let outcome = await send(people, senders: senders, ledger: ledger)
            try await Task.sleep(for: .seconds(2))  // the last deliveries
            let (latencies, undelivered, duplicated, outOfOrder) = ledger.take()
            let cpu = cpuBefore.flatMap { before in
                ProcessCPU.seconds(pid: serverPID).map { 100 * ($0 - before) / (outcome.seconds + 2) }
            }
            let postgresCPU = postgresBefore.flatMap { before in
                postgresPID.map { 100 * (ProcessCPU.postgresSeconds(postmaster: $0) - before) / (outcome.seconds + 2) }
            }
            let clientCPU = clientBefore.flatMap { before in
                ProcessCPU.seconds(pid: nil).map { 100 * ($0 - before) / (outcome.seconds + 2) }
            }
            results.append(Result(senders: senders, accepted: outcome.accepted, failed: outcome.failed, seconds: outcome.seconds,
                                  delivered: latencies.count, undelivered: undelivered, duplicated: duplicated,
                                  outOfOrder: outOfOrder,
                                  latency: LatencySummary(nanoseconds: latencies, failed: undelivered, seconds: outcome.seconds),
                                  serverCPU: cpu, postgresCPU: postgresCPU, clientCPU: clientCPU, firstError: outcome.firstError))
        }
        return results
    }

    /// Anonymous accounts, 50 sign-ins at a time, paired: members 2k and 2k+1 share a conversation.
    private func signIn() async throws -> [Member] {
        var people: [Member] = []
        for start in stride(from: 0, to: members, by: 50) {
            let batch = try await withThrowingTaskGroup(of: (Int, Identity.AuthSession).self) { group in
                for index in start..<min(start + 50, members) {
                    group.addTask {
                        (index, try await identity[index % identity.count].signInAnonymously(.init(app: app, deviceName: "bench")))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }.sorted { $0.0 < $1.0 }
            }
            for (index, session) in batch {
                let conversation = index % 2 == 0 ? UUID().uuidString.lowercased() : people[index - 1].conversation
                people.append(Member(id: session.account?.id ?? "", token: session.accessToken, conversation: conversation))
            }
        }
        return people
    }

    private func seedConversations(_ people: [Member]) async throws {
        let pool = PostgresPool(configuration: try PostgresConfiguration(url: adminURL))
        defer { pool.close() }
        let pairs = stride(from: 0, to: people.count - 1, by: 2).map { (people[$0], people[$0 + 1]) }
        try await pool.withTransaction { connection in
            _ = try await connection.execute("""
                INSERT INTO messaging.conversations (id, app, matched_at, last_activity_at)
                SELECT unnest($1::uuid[]), $2, now(), now()
                """, [.textArray(pairs.map(\.0.conversation)), .text(app)])
            _ = try await connection.execute("""
                INSERT INTO messaging.members (account_id, conversation_id, other_id)
                SELECT unnest($1::uuid[]), unnest($2::uuid[]), unnest($3::uuid[])
                """, [.textArray(pairs.flatMap { [$0.0.id, $0.1.id] }),
                      .textArray(pairs.flatMap { [$0.0.conversation, $0.1.conversation] }),
                      .textArray(pairs.flatMap { [$0.1.id, $0.0.id] })])
        }
    }

    /// One member's realtime stream: counts it ready, then records each message from the match.
    private static func follow(_ member: Member, client: RealtimeClient, ledger: Ledger) async {
        do {
            let stream = try await client.subscribe(.init(afterCursor: 0), options: .bearer(member.token))
            // Each member has one conversation: its match's messages must come in sequence order.
            var lastSequence: Int64 = 0
            for try await event in stream {
                switch event.event {
                case .ready?:
                    ledger.streamReady()
                case .message(let received)?:
                    guard let message = received.message, message.senderID != member.id else { continue }
                    ledger.arrived(message.clientMessageID, at: DispatchTime.now().uptimeNanoseconds,
                                   inOrder: message.sequence > lastSequence)
                    lastSequence = max(lastSequence, message.sequence)
                default:
                    continue
                }
            }
        } catch {
            if !Task.isCancelled {
                ledger.streamEnded()
                FileHandle.standardError.write(Data("realtime stream ended: \(error)\n".utf8))
            }
        }
    }

    private func send(_ people: [Member], senders: Int, ledger: Ledger)
        async -> (accepted: Int, failed: Int, seconds: Double, firstError: String?) {
        let clock = ContinuousClock()
        let started = clock.now
        let stopAt = started + .seconds(seconds)
        let outcomes = await withTaskGroup(of: (Int, Int, String?).self) { group in
            for sender in 0..<senders {
                group.addTask {
                    var accepted = 0
                    var failed = 0
                    var firstError: String?
                    var turn = sender
                    let client = MessagingClient(client: messaging[sender % messaging.count])
                    while clock.now < stopAt {
                        let member = people[turn % people.count]
                        turn += senders
                        let key = UUID().uuidString
                        let request = Messaging.SendMessageRequest(conversationID: member.conversation, clientMessageID: key,
                                                                   body: .text("hello from the bench"))
                        ledger.sent(key, at: DispatchTime.now().uptimeNanoseconds)
                        do {
                            _ = try await client.sendMessage(request, options: .bearer(member.token))
                            accepted += 1
                        } catch {
                            ledger.forget(key)
                            failed += 1
                            if firstError == nil { firstError = "\(error)" }
                        }
                    }
                    return (accepted, failed, firstError)
                }
            }
            return await group.reduce(into: [(Int, Int, String?)]()) { $0.append($1) }
        }
        let elapsed = clock.now - started
        return (outcomes.map(\.0).reduce(0, +), outcomes.map(\.1).reduce(0, +),
                Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                outcomes.compactMap(\.2).first)
    }
}
