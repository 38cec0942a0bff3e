/// UTF-8 validation for `string` fields (Unicode 15, table 3-7 "Well-Formed UTF-8 Byte
/// Sequences"): rejects overlong forms, surrogates and scalars above U+10FFFF.
///
/// `String(validating:as:)` is generic and unspecialized here, which costs a metadata lookup
/// per string; this loop plus `String(decoding:as:)` is several times faster.
enum UTF8Validation {
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else {
            return true
        }
        let count = bytes.count
        var i = 0
        while i < count {
            // ASCII fast path, eight bytes at a time. Safe: `i + 8 <= count`.
            while count - i >= 8 {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                guard word & 0x8080_8080_8080_8080 == 0 else {
                    break
                }
                i += 8
            }
            guard i < count else {
                return true
            }
            let lead = base[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return false
            }
            guard count - i >= length else {
                return false
            }
            // Safe: `i + length <= count` was just checked.
            let second = base[i + 1]
            guard second >= lower, second <= upper else {
                return false
            }
            var k = 2
            while k < length {
                guard base[i + k] & 0xC0 == 0x80 else {
                    return false
                }
                k += 1
            }
            i += length
        }
        return true
    }
}
