/// An RSA public key that checks RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 §3.3),
/// as Apple and Google sign their ID tokens.
package struct RSAVerifyingKey: Sendable {
    /// The OpenSSL key, shared read-only between copies.
    let key: EVPKey
    /// The modulus, big-endian without leading zeros.
    package let modulus: [UInt8]
    /// The public exponent, big-endian without leading zeros.
    package let exponent: [UInt8]
    /// The JWK `kid`; the RFC 7638 thumbprint unless one was given.
    package let keyID: String

    /// Accepted modulus sizes: RFC 7518 §3.3 requires 2048 bits or more; 8192 caps the cost.
    package static let modulusBits = 2048...8192

    /// A key from its modulus and exponent (big-endian).
    ///
    /// Throws `.invalidParameters` for a modulus outside `modulusBits` or an exponent that is
    /// even, below 3 or longer than 8 bytes.
    package init(modulus: [UInt8], exponent: [UInt8], keyID: String? = nil) throws {
        let n = Array(modulus.drop(while: { $0 == 0 }))
        let e = Array(exponent.drop(while: { $0 == 0 }))
        guard let top = n.first, Self.modulusBits.contains(n.count * 8 - top.leadingZeroBitCount) else {
            throw CryptoError(.invalidParameters, "RSA key: modulus must be 2048 to 8192 bits")
        }
        guard let last = e.last, last & 1 == 1, e.count <= 8, e.count > 1 || last >= 3 else {
            throw CryptoError(.invalidParameters, "RSA key: exponent must be odd, at least 3, at most 8 bytes")
        }
        self.key = try EVPKey.read(subjectPublicKeyInfo: DER.rsaPublicKeyInfo(modulus: n, exponent: e))
        guard self.key.isRSA else { throw CryptoError(.malformed, "RSA key: OpenSSL read another key type") }
        self.modulus = n
        self.exponent = e
        self.keyID = keyID ?? Self.thumbprint(modulus: n, exponent: e)
    }

    /// A key from a JWK object (`kty` "RSA", `n`, `e`, optional `kid`).
    ///
    /// Throws `.unsupportedAlgorithm` for another key type, `.malformed` for bad fields.
    package init(jwk: [String: JSONValue]) throws {
        guard jwk["kty"]?.stringValue == "RSA" else {
            throw CryptoError(.unsupportedAlgorithm, "JWK: key type is not RSA")
        }
        guard let n = jwk["n"]?.stringValue, let e = jwk["e"]?.stringValue else {
            throw CryptoError(.malformed, "JWK: RSA key without n and e")
        }
        let keyID = try JWK.keyID(in: jwk)
        try self.init(modulus: Base64URL.decode(n), exponent: Base64URL.decode(e), keyID: keyID)
    }

    /// The public key as a JWK object with `kty`, `n`, `e`, `kid`, `use` "sig" and `alg` "RS256".
    package var jwk: [String: JSONValue] {
        ["kty": "RSA", "n": .string(Base64URL.encode(self.modulus)), "e": .string(Base64URL.encode(self.exponent)),
         "kid": .string(self.keyID), "use": "sig", "alg": "RS256"]
    }

    /// Whether `signature` is an RS256 signature of `message` under this key.
    package func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        // RFC 8017 §8.2.2: the signature is exactly as long as the modulus.
        guard signature.count == (self.key.bits + 7) / 8 else { return false }
        return self.key.verifySHA256(signature: signature, message: message)
    }

    /// The RFC 7638 JWK thumbprint: base64url SHA-256 of `{"e","kty","n"}` in that order.
    static func thumbprint(modulus: [UInt8], exponent: [UInt8]) -> String {
        let canonical = #"{"e":"\#(Base64URL.encode(exponent))","kty":"RSA","n":"\#(Base64URL.encode(modulus))"}"#
        return Base64URL.encode(SHA256Digest.hash(Array(canonical.utf8)))
    }
}
