import Foundation
import GatewayClient
import Synchronization

/// Every call attempt the load's clients made and every status other than OK they saw, by
/// code and reason: during faults only UNAVAILABLE and DEADLINE_EXCEEDED may reach a client,
/// besides the refusals the load asks for.
final class CallBook: Sendable {
    /// Refusals the load provokes or waits out (a photo past the limit, an event not yet followed).
    static let expectedReasons: Set<String> = ["EVENT_PHOTO_LIMIT_REACHED", "USER_NOT_FOUND", "CONVERSATION_NOT_FOUND", "SEASON_EXISTS"]

    private struct State {
        var calls = 0
        var statuses: [String: Int] = [:]
    }

    private let state = Mutex(State())

    /// The observer a client of the load reports each call to.
    func record(_ method: String, _ error: GatewayError?) {
        state.withLock { state in
            state.calls += 1
            guard let error else { return }
            state.statuses[Self.classify(error, method: method), default: 0] += 1
        }
    }

    var calls: Int { state.withLock { $0.calls } }

    /// Counts by "CODE" for retriable ones, "CODE REASON (method)" for the rest.
    var statuses: [String: Int] { state.withLock { $0.statuses } }

    /// The statuses a client must never see, even during a fault.
    var unexpected: [String: Int] {
        statuses.filter { key, _ in !(key == "UNAVAILABLE" || key == "DEADLINE_EXCEEDED" || key.hasPrefix("expected ")) }
    }

    static func classify(_ error: GatewayError, method: String) -> String {
        switch error.code {
        case .unavailable, .deadlineExceeded: return "\(error.code)"
        case .aborted where method.hasSuffix("Media/Upload") && error.reason == "UPLOAD_BUSY":
            // The stream a failed attempt left on an instance still holds the upload's lease:
            // the gateway client resumes from the server's bytes once it is released.
            return "expected \(error.code) UPLOAD_BUSY (resumed by the client)"
        default:
            if let reason = error.reason, expectedReasons.contains(reason) { return "expected \(reason)" }
            return "\(error.code) \(error.reason ?? "-") (\(method): \(error.message.prefix(80)))"
        }
    }
}
