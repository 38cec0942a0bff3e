import Foundation

/// The UTC day that daily allowances (likes, super-likes) are counted in, and when it ends.
/// Days are UTC for everyone, not the viewer's time zone: the counter cannot be reset by
/// changing a device's zone, and every instance agrees on the boundary.
struct AllowanceDay: Sendable, Equatable {
    /// Days since 1970-01-01 (UTC).
    let number: Int32
    /// Unix seconds of the next UTC midnight, when the allowance starts again.
    var resetsAt: Int64 { (Int64(number) + 1) * 86_400 }

    /// The day that holds `unixSeconds`.
    init(containing unixSeconds: Int64) {
        // Floor division, so an instant before 1970 still falls in its own day.
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        number = Int32(clamping: days)
    }
}

/// Discovery's wall clock for allowances: the system clock, shifted by a fixed offset only where
/// a test asks for it (`DiscoverySettings.clockOffsetSeconds`), so that a test can run an
/// instance that lives past the next midnight without waiting for it.
struct AllowanceClock: Sendable {
    var offsetSeconds: Int64 = 0

    /// Unix seconds now, as this clock reads.
    func nowSeconds() -> Int64 { Int64(Date().timeIntervalSince1970.rounded(.down)) + offsetSeconds }

    /// Today's allowance day.
    func today() -> AllowanceDay { AllowanceDay(containing: nowSeconds()) }
}
