import Foundation

/// Conversions between `Date` and Postgres's binary timestamp: signed microseconds since
/// 2000-01-01 00:00:00 UTC, with Int64.min / Int64.max meaning -infinity / infinity.
enum PostgresTimestamp {
    /// Seconds from the Unix epoch to the Postgres epoch.
    static let postgresEpoch: Int64 = 946_684_800

    static func microseconds(from date: Date) -> Int64 {
        if date == .distantFuture { return .max }
        if date == .distantPast { return .min }
        let micros = ((date.timeIntervalSince1970 - Double(postgresEpoch)) * 1_000_000).rounded()
        guard micros > -9.2e18, micros < 9.2e18 else { return micros < 0 ? .min : .max }
        return Int64(micros)  // in range: checked above
    }

    static func date(fromMicroseconds micros: Int64) -> Date {
        switch micros {
        case .max: return .distantFuture
        case .min: return .distantPast
        default:
            let seconds = micros / 1_000_000 + postgresEpoch
            let fraction = Double(micros % 1_000_000) / 1_000_000
            return Date(timeIntervalSince1970: Double(seconds) + fraction)
        }
    }
}
