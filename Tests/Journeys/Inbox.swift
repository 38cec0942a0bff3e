package import Contracts
package import GatewayClient
import Synchronization

/// What one client's realtime stream delivered, read by a task of its own: the journeys' and
/// the end-to-end tests' way to wait for what a user would see arrive live.
package final class Inbox: Sendable {
    private final class Log: Sendable {
        let events = Mutex<[Realtime.RealtimeEvent]>([])
    }

    private let log = Log()
    private let task = Mutex<Task<Void, Never>?>(nil)

    package init(_ client: GatewayClient) {
        let stream = client.realtime.events()
        task.withLock {
            $0 = Task { [log] in
                do {
                    for try await event in stream { log.events.withLock { $0.append(event) } }
                } catch {}
            }
        }
    }

    /// Everything delivered so far, in order.
    package var all: [Realtime.RealtimeEvent] { log.events.withLock { $0 } }

    /// The first event that satisfies `predicate`, waiting up to `patience` (`what` names it
    /// in the failure).
    @discardableResult
    package func first(_ what: String = "a realtime event", within patience: Duration = .seconds(15),
                       where predicate: (Realtime.RealtimeEvent) -> Bool) async throws -> Realtime.RealtimeEvent {
        let deadline = ContinuousClock.now + patience
        while ContinuousClock.now < deadline {
            if let found = log.events.withLock({ $0.first(where: predicate) }) { return found }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw JourneyFailure("timed out waiting for \(what)")
    }

    package func stop() { task.withLock { $0?.cancel() } }
}
