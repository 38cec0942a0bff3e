import Contracts
import Foundation
@testable import Messaging
import Postgres
import Testing

/// Push throughput against the fake APNs (opt-in: RV_PUSH_BENCH=<jobs>): jobs are queued at once
/// and both messaging instances work them (identity lookup, APNs over one TLS HTTP/2 connection
/// each, delivery log); prints pushes per second.
@Suite(.serialized, .pushServices,
       .enabled(if: ProcessInfo.processInfo.environment["RV_PUSH_BENCH"] != nil, "set RV_PUSH_BENCH=<jobs> to measure"))
struct PushThroughputTests {
    @Test func queuedPushes_reachAPNs() async throws {
        let count = Int(ProcessInfo.processInfo.environment["RV_PUSH_BENCH"] ?? "") ?? 2_000
        let (members, fake) = try await PushTests.setUp()
        defer { members.close() }
        let ben = try await members.join()
        let token = try await PushTests.register(ben, members)
        let payload = PushPayload(title: "New message", body: "bench", category: .message, threadID: "bench",
                                  deepLink: "swivo://conversation/bench").bytes()
        let start = ContinuousClock.now
        try await members.admin.withConnection { connection in
            _ = try await connection.execute("""
                INSERT INTO messaging.push_jobs (source, account_id, app, category, reference, payload, collapse_id, priority,
                                                 expires_at)
                SELECT 'bench:' || $4 || ':' || n, $1::uuid, 'swivo', 2, 'bench-' || n, $2, 'bench-' || n, 10,
                       now() + interval '1 hour'
                FROM generate_series(1, $3::int) n
                """, [.text(ben.id), .bytea(payload), .int(count), .text(UUID().uuidString)])
        }
        _ = try await fake.waitFor(token, timeout: .seconds(120)) { $0.filter { $0.status == 200 }.count >= count }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("push throughput: \(count) pushes in \(String(format: "%.2f", seconds)) s = \(Int(Double(count) / seconds))/s")
        #expect(fake.requests(to: token).filter { $0.status == 200 }.count == count)
    }

    @Test func sentMessages_reachAPNsAsPushes() async throws {
        let count = Int(ProcessInfo.processInfo.environment["RV_PUSH_BENCH"] ?? "") ?? 2_000
        let (members, fake) = try await PushTests.setUp()
        defer { members.close() }
        let ana = try await members.join()
        let ben = try await members.join()
        let token = try await PushTests.register(ben, members)
        let id = try await members.match(ana, ben)
        _ = try await fake.waitFor(token) { $0.contains { $0.category == "match" } }
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<32 {
                group.addTask {
                    for index in stride(from: worker, to: count, by: 32) {
                        _ = try await members.send("bench \(index)", from: ana, in: id, instance: index % 2)
                    }
                }
            }
            try await group.waitForAll()
        }
        let sent = ContinuousClock.now - start
        _ = try await fake.waitFor(token, timeout: .seconds(180)) {
            $0.filter { $0.status == 200 && $0.category == "message" }.count >= count
        }
        let elapsed = ContinuousClock.now - start
        print("push end to end: \(count) messages sent in \(Self.seconds(sent)) s; all pushed at APNs after "
              + "\(Self.seconds(elapsed)) s = \(Int(Double(count) / Self.seconds(elapsed)))/s")
        #expect(fake.requests(to: token).filter { $0.status == 200 && $0.category == "message" }.count == count)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
