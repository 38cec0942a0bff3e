import Postgres
import Synchronization

/// The restore horizon (`messaging.push_horizon`, see `PushMigrations.restoreHorizon`): the
/// instant a point-in-time restore went back to, or none. Events that occurred at or before it
/// may have been pushed in the timeline the restore discarded, so they plan no push.
///
/// Read once per process, on the first event: a restore happens while the services are stopped
/// (`db.sh restore` builds a new, stopped cluster), so a running instance never sees it move.
final class PushHorizon: Sendable {
    private let notBefore = Mutex<Int64??>(nil)

    /// Whether an event that occurred at `occurred` (Unix microseconds) is past the horizon.
    func admits(occurred: Int64, on connection: Connection) async throws -> Bool {
        guard let horizon = try await horizon(on: connection) else { return true }
        return occurred > horizon
    }

    private func horizon(on connection: Connection) async throws -> Int64? {
        if let known = notBefore.withLock({ $0 }) { return known }
        let rows = try await connection.query(
            "SELECT (extract(epoch FROM not_before) * 1000000)::int8 FROM messaging.push_horizon")
        let read: Int64? = try rows.first.map { try $0.decode(0) }
        notBefore.withLock { $0 = .some(read) }
        return read
    }
}
