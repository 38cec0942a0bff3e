import Contracts
import Foundation

extension Timestamp {
    /// ISO 8601 in UTC, to the second.
    var iso8601: String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }
}

/// A timestamp for output; empty when unset.
func iso(_ timestamp: Timestamp?) -> String { timestamp?.iso8601 ?? "" }

/// A timestamp for JSON; null when unset.
func isoJSON(_ timestamp: Timestamp?) -> Any { timestamp.map { $0.iso8601 } ?? NSNull() }
