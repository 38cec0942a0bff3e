import CryptoCore
import Runtime

/// The AES-256 key that seals signing keys in the database.
///
/// `RV_IDENTITY_KEY_ENCRYPTION_KEY`: 32 bytes, base64url (`openssl rand 32 | basenc
/// --base64url`). Unset, a development key derived from a fixed string is used and a warning
/// logged: it protects nothing, since anyone can derive it. Keys sealed under one key cannot be
/// opened under another; changing it means deleting `identity.signing_keys` (tokens in flight
/// are then refused and clients refresh).
enum KeyEncryptionKey {
    static let variable = "RV_IDENTITY_KEY_ENCRYPTION_KEY"

    /// The key from the environment, or the development key (with `isDevelopment` set).
    static func load(from environment: EnvironmentReader) throws -> (key: [UInt8], isDevelopment: Bool) {
        guard let text = environment[variable], !text.isEmpty else {
            return (developmentKey, true)
        }
        guard let key = try? Base64URL.decode(text.trimmingTrailingPadding), key.count == AESGCM.keyLength else {
            throw ConfigurationError(variable: variable, message: "must be 32 bytes in base64url")
        }
        return (key, false)
    }

    /// SHA-256 of a fixed string: for local development and tests only.
    static let developmentKey = SHA256Digest.hash(Array("rendezvous identity development key-encryption key".utf8))
}

extension String {
    fileprivate var trimmingTrailingPadding: Substring {
        var text = Substring(self)
        while text.hasSuffix("=") { text = text.dropLast() }
        return text
    }
}
