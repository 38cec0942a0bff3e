import Foundation
import RPCCore

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
        // SystemRandomNumberGenerator is the platform's cryptographically secure source
        // (getrandom on Linux, arc4random on Apple platforms).
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        raw = Self.base64URL(bytes)
    }

    /// The lowercase hex SHA-256 of `raw`, which Apple puts in the token's `nonce` claim.
    public var sha256: String {
        SHA256.hex(raw)
    }

    /// Unpadded base64url (RFC 4648 §5).
    private static func base64URL(_ bytes: [UInt8]) -> String {
        Base64.encode(bytes).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
