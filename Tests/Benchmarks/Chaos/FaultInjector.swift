import Foundation
import Postgres
import Synchronization
import TestSupport

/// Injects a schedule's faults into a running stack and records each: when it began, when the
/// dependency was back (an instance restarted, SIGCONT, Postgres up again, the store fast
/// again, APNs answering), what it did, and how long after that the services served again.
final class FaultInjector: Sendable {
    struct Outcome: Sendable {
        let fault: FaultSchedule.Fault
        let began: ContinuousClock.Instant
        var returned: ContinuousClock.Instant
        var detail: String
    }

    private let stack: JourneyStack
    private let dependencies: SlowDependencies
    private let outcomes = Mutex<[Outcome]>([])

    init(stack: JourneyStack, dependencies: SlowDependencies) {
        self.stack = stack
        self.dependencies = dependencies
    }

    /// Runs every fault at its time after `start`; returns when the last has ended.
    func run(_ schedule: FaultSchedule, from start: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            for fault in schedule.faults {
                group.addTask {
                    try? await Task.sleep(until: start + .seconds(fault.at))
                    let began = ContinuousClock.now
                    say("chaos: t=\(fault.at) s \(fault.kind.rawValue) \(fault.service)")
                    var outcome = Outcome(fault: fault, began: began, returned: began, detail: "")
                    do {
                        outcome.detail = try await self.inject(fault, returned: &outcome.returned)
                    } catch {
                        outcome.detail = "FAILED TO INJECT: \(error)"
                    }
                    self.outcomes.withLock { $0.append(outcome) }
                }
            }
        }
    }

    var all: [Outcome] { outcomes.withLock { $0.sorted { $0.began < $1.began } } }

    private func inject(_ fault: FaultSchedule.Fault, returned: inout ContinuousClock.Instant) async throws -> String {
        switch fault.kind {
        case .kill:
            await stack.processes[fault.service]![fault.instance].kill()  // the schedule names existing instances
            let killed = ContinuousClock.now
            returned = killed
            let restarted = try await restart(fault.service, fault.instance)
            return "restarted in \(Self.seconds(restarted - killed))"
        case .stop:
            let process = stack.processes[fault.service]![fault.instance]
            process.pause()
            try? await Task.sleep(for: .seconds(10))
            process.resume()
            returned = .now
            return "\(fault.service) #\(fault.instance + 1) hung 10 s"
        case .terminate:
            return try await terminateMidTransaction(role: "rv_\(fault.service)")
        case .reload:
            stack.edge.reload()
            return "nginx re-read its configuration"
        case .slow:
            try await dependencies.slow(10)
            try? await Task.sleep(for: .seconds(20))
            try await dependencies.slow(0)
            returned = .now
            return "answers 10 s late for 20 s"
        case .apns:
            guard let apns = stack.apns else { return "no APNs" }
            apns.beginOutage()
            try? await Task.sleep(for: .seconds(60))
            apns.endOutage()
            returned = .now
            let delivered = apns.allRequests.filter { $0.status == 200 }.count
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline, apns.allRequests.filter({ $0.status == 200 }).count == delivered {
                try? await Task.sleep(for: .milliseconds(50))
            }
            return "first push delivered \(Self.seconds(.now - returned)) after APNs returned"
        case .postgres:
            try await database("kill")
            let down = ContinuousClock.now
            try await database("start")
            returned = .now
            return "down \(Self.seconds(returned - down)) (crash recovery included)"
        }
    }

    /// Starts the instance again on its port, trying until it starts (Postgres may be down).
    private func restart(_ service: String, _ index: Int) async throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            do {
                try await stack.restart(service, index)
                return .now
            } catch where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// pg_terminate_backend on every connection of `role` once one of them is inside a
    /// transaction (up to 5 s); how many were.
    private func terminateMidTransaction(role: String) async throws -> String {
        let admin = try await TestDatabase.makeAdminPool(poolSize: 1)
        defer { admin.close() }
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let busy = try await admin.withConnection { connection in
                try await connection.query("""
                    SELECT count(*) FROM pg_stat_activity
                    WHERE usename = $1 AND datname = current_database() AND xact_start IS NOT NULL
                    """, [.text(role)])[0].decode(0, as: Int.self)
            }
            if busy > 0 { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        let row = try await admin.withConnection { connection in
            try await connection.query("""
                SELECT count(*) FILTER (WHERE xact_start IS NOT NULL), count(*) FILTER (WHERE pg_terminate_backend(pid))
                FROM pg_stat_activity WHERE usename = $1 AND datname = current_database()
                """, [.text(role)])[0]
        }
        return "\(try row.decode(1, as: Int.self)) connections of \(role) ended, \(try row.decode(0, as: Int.self)) inside a transaction"
    }

    /// compose/local/db.sh `command` on the harness's cluster (RV_PG_PORT, RV_DATA_DIR).
    private func database(_ command: String) async throws {
        let script = RepositoryPaths.root.appendingPathComponent("compose/local/db.sh").path
        let result = try await Subprocess.run("/bin/bash", [script, command], timeout: .seconds(120))
        guard result.exitCode == 0 else { throw ChaosFailure("db.sh \(command) exited \(result.exitCode): \(result.output)") }
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
