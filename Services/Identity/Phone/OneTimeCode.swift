import CryptoCore

/// Phone one-time codes: 6 random digits, stored only as an HMAC-SHA-256 with a per-code salt
/// under a key derived from the key-encryption key, so a copy of the database alone does not
/// yield codes (6 digits would fall to a brute force of a plain hash at once).
struct OneTimeCode: Sendable {
    /// The HMAC key: HMAC(key-encryption key, a fixed label), separate from its other uses.
    let hashKey: [UInt8]

    static let digits = 6

    init(keyEncryptionKey: [UInt8]) {
        hashKey = HMACSHA256.authenticate(key: keyEncryptionKey, message: Array("rendezvous phone one-time codes v1".utf8))
    }

    /// 6 uniformly random digits ("000000"–"999999"): 4-byte draws ≥ 4,294,000,000 are redrawn so
    /// the remainder is unbiased.
    static func make() -> String {
        while true {
            let bytes = SecureRandom.bytes(4)
            let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard value < 4_294_000_000 else { continue }
            let number = String(value % 1_000_000)
            return String(repeating: "0", count: digits - number.count) + number
        }
    }

    /// A fresh random salt for one code.
    static func makeSalt() -> [UInt8] { SecureRandom.bytes(16) }

    /// The stored form of `code` sent to `phone` in `app`: binding the number and app means a
    /// row's hash is useless for any other.
    func hash(_ code: String, salt: [UInt8], app: String, phone: PhoneNumber) -> [UInt8] {
        HMACSHA256.authenticate(key: hashKey, message: salt + Array("\(app)\u{0}\(phone.value)\u{0}\(code)".utf8))
    }

    /// Whether `code` is the one `stored` was made from, comparing in constant time.
    func matches(_ code: String, stored: [UInt8], salt: [UInt8], app: String, phone: PhoneNumber) -> Bool {
        guard code.utf8.count == Self.digits, code.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        return ConstantTime.equals(hash(code, salt: salt, app: app, phone: phone), stored)
    }
}
