import Foundation
import Synchronization

/// Chat messages on their way: each send names its recipient and scheduled time; the first
/// arrival on the recipient's own stream (not the sender's echo, not a replay) is its delivery.
final class Deliveries: Sendable {
    private struct Expected {
        var recipient: String
        var scheduled: ContinuousClock.Instant
    }

    private let pending = Mutex<[String: Expected]>([:])
    private let book: @Sendable () -> LatencyBook

    init(book: @escaping @Sendable () -> LatencyBook) { self.book = book }

    func expect(_ clientMessageID: String, by recipient: String, scheduled: ContinuousClock.Instant) {
        pending.withLock { $0[clientMessageID] = Expected(recipient: recipient, scheduled: scheduled) }
    }

    func arrived(_ clientMessageID: String, at accountID: String) {
        let now = ContinuousClock.now
        let expected = pending.withLock { pending -> Expected? in
            guard let expected = pending[clientMessageID], expected.recipient == accountID else { return nil }
            pending[clientMessageID] = nil
            return expected
        }
        if let expected { book().answered(.delivery, now - expected.scheduled) }
    }

    /// Forgets messages whose send failed (never meant to arrive).
    func cancel(_ clientMessageID: String) { pending.withLock { $0[clientMessageID] = nil } }

    /// Messages scheduled before `instant` that have not arrived: lost. They are forgotten.
    func takeLost(scheduledBefore instant: ContinuousClock.Instant) -> Int {
        pending.withLock { pending in
            let lost = pending.filter { $0.value.scheduled < instant }.map(\.key)
            lost.forEach { pending[$0] = nil }
            return lost.count
        }
    }
}
