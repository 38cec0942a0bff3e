import Synchronization

/// Events a test service records (handler started, saw cancellation…), for a test to await.
final class Probe: Sendable {
    private let events = Mutex<[String]>([])

    func record(_ event: String) {
        events.withLock { $0.append(event) }
    }

    var recorded: [String] { events.withLock { $0 } }

    func count(of event: String) -> Int {
        events.withLock { $0.filter { $0 == event }.count }
    }

    /// Waits until `event` was recorded `times` times; false after `timeout`.
    func wait(for event: String, times: Int = 1, timeout: Duration = .seconds(5)) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if count(of: event) >= times { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return count(of: event) >= times
    }
}
