import CryptoCore

/// Referral codes as members share them: 6 characters, upper-case letters and digits without
/// look-alikes (no 0/O, 1/I/L), e.g. `EXT7K2` (the seed's `ELT7K2` has an L). 31⁶ ≈ 8.9 × 10⁸ codes.
enum ReferralCodeFormat {
    static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    static let length = 6

    /// A fresh random code, uniform over the alphabet (bytes ≥ 248 = 8 × 31 are redrawn).
    static func make() -> String {
        var characters: [Character] = []
        while characters.count < length {
            for byte in SecureRandom.bytes(length) where characters.count < length && Int(byte) < 248 {
                characters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(characters)
    }

    /// The code as stored: trimmed and upper-cased. INVALID_ARGUMENT `INVALID_REFERRAL_CODE`
    /// unless it then has `length` characters of the alphabet.
    static func normalize(_ text: String) throws(MembershipError) -> String {
        let code = text.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        guard code.count == length, code.allSatisfy(alphabet.contains) else { throw .invalidReferralCode }
        return code
    }
}
