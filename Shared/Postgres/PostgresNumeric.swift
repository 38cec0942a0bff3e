/// An exact `numeric` value that fits in Int64 once scaled: `unscaled / 10^scale`.
/// Money travels as integer minor units, so `numeric(12,2)` 19.99 is `(1999, scale: 2)`.
package struct PostgresNumeric: Hashable, Sendable, CustomStringConvertible {
    package var unscaled: Int64
    package var scale: Int

    package init(unscaled: Int64, scale: Int) {
        self.unscaled = unscaled
        self.scale = scale
    }

    /// The value in minor units at `scale` decimals; throws if that would lose digits or overflow.
    package func minorUnits(scale target: Int = 2) throws(PostgresError) -> Int64 {
        var value = unscaled
        if target >= scale {
            for _ in scale..<target {
                let (product, overflow) = value.multipliedReportingOverflow(by: 10)
                guard !overflow else { throw Self.outOfRange }
                value = product
            }
        } else {
            for _ in target..<scale {
                guard value % 10 == 0 else { throw Self.outOfRange }
                value /= 10
            }
        }
        return value
    }

    /// Decimal text, e.g. `-12.05`: the text-format parameter encoding.
    package var description: String {
        let digits = String(unscaled.magnitude)
        let sign = unscaled < 0 ? "-" : ""
        guard scale > 0 else { return sign + digits }
        let padded = String(repeating: "0", count: max(0, scale + 1 - digits.count)) + digits
        return sign + padded.dropLast(scale) + "." + padded.suffix(scale)
    }

    private static var outOfRange: PostgresError {
        PostgresError(code: .decodingFailed, context: "numeric does not fit the requested minor units")
    }

    /// Decodes the binary layout: digit count, weight (base-10000 exponent of the first digit),
    /// sign, display scale, then base-10000 digits.
    init?(binary bytes: ArraySlice<UInt8>) {
        var reader = ByteReader(bytes)
        guard let count = reader.readInteger(as: Int16.self), count >= 0,
              let weight = reader.readInteger(as: Int16.self),
              let sign = reader.readInteger(as: UInt16.self), sign == 0 || sign == 0x4000,
              let displayScale = reader.readInteger(as: Int16.self), displayScale >= 0 else { return nil }
        var value: Int64 = 0
        for index in 0..<Int(count) {
            guard let digit = reader.readInteger(as: Int16.self), (0..<10_000).contains(digit) else { return nil }
            // Decimal exponent of this digit once the value is scaled by 10^displayScale.
            let exponent = 4 * (Int(weight) - index) + Int(displayScale)
            guard let term = Self.scale(Int64(digit), byPowerOfTen: exponent) else { return nil }
            let (sum, overflow) = value.addingReportingOverflow(term)
            guard !overflow else { return nil }
            value = sum
        }
        self.init(unscaled: sign == 0x4000 ? -value : value, scale: Int(displayScale))
    }

    /// `value * 10^exponent`, truncating for negative exponents (digits beyond the display
    /// scale are zero padding); nil on overflow.
    private static func scale(_ value: Int64, byPowerOfTen exponent: Int) -> Int64? {
        var result = value
        if exponent >= 0 {
            for _ in 0..<exponent {
                let (product, overflow) = result.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                result = product
            }
        } else {
            for _ in 0..<min(-exponent, 19) { result /= 10 }
        }
        return result
    }
}
