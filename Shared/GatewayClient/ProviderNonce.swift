import CryptoCore

/// The one-time nonce of an Apple or Google sign-in: made fresh for each attempt, it ties the
/// ID token to this sign-in so a token taken from elsewhere cannot be replayed.
///
/// Give Apple `sha256` (`ASAuthorizationAppleIDRequest.nonce`) and Google `raw`; pass `raw` to
/// `signInWithProvider` or `linkProvider` either way.
public struct ProviderNonce: Sendable, Equatable {
    /// 32 random bytes, base64url: what Identity receives.
    public let raw: String

    /// A fresh nonce from the system's secure random source.
    public init() {
        raw = Base64URL.encode(SecureRandom.bytes(32))
    }

    /// The lowercase hex SHA-256 of `raw`, which Apple puts in the token's `nonce` claim.
    public var sha256: String {
        SHA256Digest.hash(Array(raw.utf8)).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
        }.joined()
    }
}
