import CryptoCore

/// Opaque refresh tokens: 32 random bytes in base64url, stored only as their SHA-256.
enum RefreshToken {
    static func make() -> String { Base64URL.encode(SecureRandom.bytes(32)) }

    /// What the database holds for `token`. A plain hash suffices: the token has 256 bits of
    /// entropy, so there is nothing to brute-force.
    static func hash(_ token: String) -> [UInt8] { SHA256Digest.hash(Array(token.utf8)) }
}
