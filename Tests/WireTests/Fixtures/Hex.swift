extension Array where Element == UInt8 {
    /// Bytes from hex pairs, spaces ignored: `[UInt8](hex: "08 96 01")`.
    init(hex: String) {
        let digits = hex.filter { !$0.isWhitespace }.map { UInt8(String($0), radix: 16)! }
        self = stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    /// Lowercase hex pairs separated by spaces, for readable failures.
    var hex: String {
        map { String($0 >> 4, radix: 16) + String($0 & 0xF, radix: 16) }.joined(separator: " ")
    }
}
