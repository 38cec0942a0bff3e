import CryptoCore

/// Generated usernames of anonymous device accounts: `anon-` and random characters from an
/// alphabet without look-alikes (no 0/o, 1/l/i).
enum AnonymousUsername {
    static let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")

    /// `anon-` plus `length` random characters (uniform: bytes ≥ 248 are redrawn).
    static func make(length: Int = 6) -> String {
        var characters: [Character] = []
        while characters.count < length {
            for byte in SecureRandom.bytes(length) where characters.count < length && Int(byte) < 248 {
                characters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return "anon-" + String(characters)
    }
}
