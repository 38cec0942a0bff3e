/// A phone number in E.164 form (ITU-T E.164): "+", a country code not starting with 0, and at
/// most 15 digits in all. One number is one phone credential per app.
struct PhoneNumber: Sendable, Hashable, CustomStringConvertible {
    /// "+" and the digits, e.g. "+14155550123".
    let value: String

    /// Fewest digits accepted: the shortest numbers in use (e.g. Niue, +683 and 4 digits) have 7.
    static let minimumDigits = 7
    static let maximumDigits = 15

    /// Accepts "+" (or the international prefix "00") and 7–15 digits, ignoring spaces, dots,
    /// dashes and parentheses between them. National numbers (no country code) are refused:
    /// without the country the digits are ambiguous. Throws INVALID_ARGUMENT `INVALID_PHONE`.
    init(_ text: String) throws(AccountError) {
        guard text.utf8.count <= 64 else { throw .invalidPhone }
        var digits: [UInt8] = []
        var sawPlus = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits.append(byte)
            case UInt8(ascii: "+") where !sawPlus && digits.isEmpty:
                sawPlus = true
            case UInt8(ascii: " "), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "("), UInt8(ascii: ")"),
                 UInt8(ascii: "\t"):
                continue
            default:
                throw .invalidPhone
            }
        }
        if !sawPlus {
            guard digits.starts(with: [UInt8(ascii: "0"), UInt8(ascii: "0")]) else { throw .invalidPhone }
            digits.removeFirst(2)
        }
        guard (Self.minimumDigits...Self.maximumDigits).contains(digits.count),
              digits.first != UInt8(ascii: "0") else { throw .invalidPhone }
        value = "+" + String(decoding: digits, as: UTF8.self)
    }

    var description: String { value }
}
