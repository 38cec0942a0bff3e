import Contracts
import CryptoCore

/// An external identity provider whose ID tokens Identity accepts, and what differs between
/// them: issuers, how the nonce is carried, and where its keys are configured.
enum SignInProvider: String, Sendable, Hashable, CaseIterable {
    case apple
    case google

    /// The provider a request names; nil for UNSPECIFIED or a number we do not know.
    init?(_ provider: Identity.IdentityProvider) {
        switch provider {
        case .apple: self = .apple
        case .google: self = .google
        default: return nil
        }
    }

    /// The sign-in method an app's policy must allow.
    var method: SignInMethod {
        switch self {
        case .apple: .apple
        case .google: .google
        }
    }

    /// Accepted `iss` values: Google issues with and without the scheme.
    var issuers: Set<String> {
        switch self {
        case .apple: ["https://appleid.apple.com"]
        case .google: ["https://accounts.google.com", "accounts.google.com"]
        }
    }

    /// The `nonce` claim the token must carry for the nonce the app generated: Apple's
    /// AuthenticationServices flow sends SHA-256 of it (lowercase hex) to Apple, which puts
    /// that in the token; Google puts the nonce in as given.
    func expectedNonce(raw: String) -> String {
        switch self {
        case .apple: SHA256Digest.hash(Array(raw.utf8)).lowercaseHex
        case .google: raw
        }
    }

    /// `RV_IDENTITY_APPLE`, `RV_IDENTITY_GOOGLE`: the prefix of its environment variables.
    var environmentPrefix: String { "RV_IDENTITY_\(rawValue.uppercased())" }
}

extension Array where Element == UInt8 {
    /// The bytes as lowercase hexadecimal, two digits each.
    fileprivate var lowercaseHex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
