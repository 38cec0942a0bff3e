/// An EC P-256 private key that makes ES256 signatures (RFC 7518 §3.4) for our access tokens.
///
/// Holds secret material: never log it, and export it only with `pemBytes()` to a key file.
package struct ECSigningKey: Sendable {
    /// The OpenSSL key pair, shared read-only between copies.
    let key: EVPKey
    /// The public half, with the key ID tokens carry in `kid`.
    package let verifyingKey: ECVerifyingKey

    /// The `kid` this key signs with.
    package var keyID: String { self.verifyingKey.keyID }

    /// A fresh random P-256 key; `keyID` defaults to the RFC 7638 thumbprint.
    package static func generate(keyID: String? = nil) throws -> ECSigningKey {
        let key = try CryptoError.translating(.libraryFailure) { try EVPKey.makeP256() }
        return try ECSigningKey(key: key, keyID: keyID)
    }

    /// A key from PEM (PKCS#8 "PRIVATE KEY" or SEC1 "EC PRIVATE KEY"); unencrypted only.
    ///
    /// Throws `.malformed` for unreadable PEM, `.unsupportedAlgorithm` for a non-P-256 key.
    package init(pem: [UInt8], keyID: String? = nil) throws {
        let key = try CryptoError.translating(.malformed) { try EVPKey.read(pem: pem) }
        try self.init(key: key, keyID: keyID)
    }

    private init(key: EVPKey, keyID: String?) throws {
        self.key = key
        self.verifyingKey = try ECVerifyingKey(key: key, keyID: keyID)
    }

    /// The private key as an unencrypted PKCS#8 PEM block.
    package func pemBytes() throws -> [UInt8] {
        try CryptoError.translating(.libraryFailure) { try self.key.pemBytes() }
    }

    /// An ES256 signature of `message` in JOSE form (r‖s, 64 bytes).
    package func signature(for message: [UInt8]) throws -> [UInt8] {
        let der = try self.key.signSHA256(message)
        guard let raw = DER.rawECDSASignature(der, width: ECVerifyingKey.coordinateLength) else {
            throw CryptoError(.libraryFailure, "ECDSA: OpenSSL returned an unexpected signature encoding")
        }
        return raw
    }
}
