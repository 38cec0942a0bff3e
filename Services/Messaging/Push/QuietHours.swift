/// A daily window in the user's local time inside which pushes arrive silently.
struct QuietHours: Sendable, Equatable {
    /// Minutes after local midnight, 0-1439; start == end is no window.
    var startMinute: Int
    var endMinute: Int
    /// The user's offset from UTC, -840...840 minutes.
    var utcOffsetMinutes: Int

    static let none = QuietHours(startMinute: 0, endMinute: 0, utcOffsetMinutes: 0)

    var isValid: Bool {
        (0..<1440).contains(startMinute) && (0..<1440).contains(endMinute) && (-840...840).contains(utcOffsetMinutes)
    }

    /// Whether `unixSeconds` falls inside the window (which may wrap past midnight).
    func contains(unixSeconds: Int64) -> Bool {
        guard startMinute != endMinute else { return false }
        let utcMinute = Int((unixSeconds / 60) % 1440)
        let local = ((utcMinute + utcOffsetMinutes) % 1440 + 1440) % 1440
        return startMinute < endMinute ? (startMinute..<endMinute).contains(local)
                                       : local >= startMinute || local < endMinute
    }
}
