import Contracts
import Foundation

/// A birth date: a real calendar day, not before 1900 and not in the future. Ages are counted
/// in UTC, in whole years (someone born on 29 February turns a year older on 1 March in
/// common years).
struct BirthDate: Sendable, Hashable {
    let year: Int
    let month: Int
    let day: Int

    /// INVALID_ARGUMENT `INVALID_BIRTH_DATE` unless `date` is a real day between 1900 and `now`.
    init(_ date: Profiles.CalendarDate, now: Date = Date()) throws(ProfileError) {
        let year = Int(date.year), month = Int(date.month), day = Int(date.day)
        guard year >= 1900, (1...12).contains(month), (1...Self.days(inMonth: month, of: year)).contains(day) else {
            throw .invalidBirthDate
        }
        self.init(verifiedYear: year, month: month, day: day)
        guard !isAfter(now) else { throw .invalidBirthDate }
    }

    /// A date read back from the database, already valid.
    init(verifiedYear year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Whole years from this date to `date` (UTC); negative when `date` is earlier.
    func age(on date: Date) -> Int {
        let today = Self.utc.dateComponents([.year, .month, .day], from: date)
        guard let thisYear = today.year, let thisMonth = today.month, let thisDay = today.day else { return 0 }
        let hadBirthday = (thisMonth, thisDay) >= (month, day)
        return thisYear - year - (hadBirthday ? 0 : 1)
    }

    /// `YYYY-MM-DD`, as Postgres reads a `date`.
    var isoText: String {
        let y = String(year), m = month < 10 ? "0\(month)" : String(month), d = day < 10 ? "0\(day)" : String(day)
        return "\(y)-\(m)-\(d)"
    }

    var message: Profiles.CalendarDate {
        Profiles.CalendarDate(year: Int32(year), month: Int32(month), day: Int32(day))
    }

    private func isAfter(_ date: Date) -> Bool {
        let today = Self.utc.dateComponents([.year, .month, .day], from: date)
        guard let y = today.year, let m = today.month, let d = today.day else { return true }
        return (year, month, day) > (y, m, d)
    }

    private static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }()
}
