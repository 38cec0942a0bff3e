/// The `grpc-timeout` header: at most 8 ASCII digits and a unit (H, M, S, m, u, n).
package enum GRPCTimeout {
    /// The timeout in nanoseconds, or nil when the value is malformed.
    package static func parse(_ text: String) -> UInt64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.count <= 9 else { return nil }
        var amount: UInt64 = 0
        for digit in bytes.dropLast() {
            guard digit >= 0x30 && digit <= 0x39 else { return nil }
            amount = amount * 10 + UInt64(digit - 0x30)
        }
        let unit: UInt64
        switch bytes.last {
        case UInt8(ascii: "H"): unit = 3_600_000_000_000
        case UInt8(ascii: "M"): unit = 60_000_000_000
        case UInt8(ascii: "S"): unit = 1_000_000_000
        case UInt8(ascii: "m"): unit = 1_000_000
        case UInt8(ascii: "u"): unit = 1_000
        case UInt8(ascii: "n"): unit = 1
        default: return nil
        }
        let (product, overflow) = amount.multipliedReportingOverflow(by: unit)
        return overflow ? UInt64.max : product
    }

    /// `duration` in whole nanoseconds, saturating: `.seconds(Int64.max)` means "practically
    /// never", not a trap; a negative duration is 0.
    package static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (total, carry) = whole.addingReportingOverflow(UInt64(max(0, attoseconds) / 1_000_000_000))
        return overflow || carry ? UInt64.max : total
    }

    /// Encodes a timeout in the largest unit that keeps it within 8 digits.
    package static func encode(nanoseconds: UInt64) -> String {
        let units: [(UInt64, String)] = [(1, "n"), (1_000, "u"), (1_000_000, "m"), (1_000_000_000, "S"),
                                         (60_000_000_000, "M"), (3_600_000_000_000, "H")]
        for (size, name) in units {
            // Rounded up without `nanoseconds + size - 1`, which overflows near UInt64.max.
            let value = nanoseconds / size + (nanoseconds % size == 0 ? 0 : 1)
            if value < 100_000_000 { return "\(value)\(name)" }
        }
        return "99999999H"
    }
}
