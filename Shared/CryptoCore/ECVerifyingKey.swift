internal import Foundation

/// An EC P-256 public key that checks ES256 signatures (ECDSA with SHA-256, RFC 7518 §3.4).
package struct ECVerifyingKey: Sendable {
    /// The OpenSSL key, shared read-only between copies.
    let key: EVPKey
    /// The affine x coordinate, 32 bytes big-endian.
    package let x: [UInt8]
    /// The affine y coordinate, 32 bytes big-endian.
    package let y: [UInt8]
    /// The JWK `kid`; the RFC 7638 thumbprint unless one was given.
    package let keyID: String

    /// Bytes of each coordinate and of each half of a JOSE signature.
    static let coordinateLength = 32

    /// A key from its affine coordinates; throws `.malformed` unless the point is on P-256.
    package init(x: [UInt8], y: [UInt8], keyID: String? = nil) throws {
        guard x.count == Self.coordinateLength, y.count == Self.coordinateLength else {
            throw CryptoError(.malformed, "EC key: coordinates must be 32 bytes each")
        }
        let key = try EVPKey.read(subjectPublicKeyInfo: DER.p256PublicKeyPrefix + [0x04] + x + y)
        self.init(key: key, x: x, y: y, keyID: keyID)
    }

    /// A key from a JWK object (`kty` "EC", `crv` "P-256", `x`, `y`, optional `kid`).
    ///
    /// Throws `.unsupportedAlgorithm` for another key type or curve, `.malformed` for bad fields.
    package init(jwk: [String: JSONValue]) throws {
        guard jwk["kty"]?.stringValue == "EC" else {
            throw CryptoError(.unsupportedAlgorithm, "JWK: key type is not EC")
        }
        guard jwk["crv"]?.stringValue == "P-256" else {
            throw CryptoError(.unsupportedAlgorithm, "JWK: curve is not P-256")
        }
        guard let x = jwk["x"]?.stringValue, let y = jwk["y"]?.stringValue else {
            throw CryptoError(.malformed, "JWK: EC key without x and y")
        }
        let keyID = try JWK.keyID(in: jwk)
        try self.init(x: Base64URL.decode(x), y: Base64URL.decode(y), keyID: keyID)
    }

    /// A key from a PEM "PUBLIC KEY" block (SubjectPublicKeyInfo).
    package init(pem: [UInt8], keyID: String? = nil) throws {
        try self.init(key: EVPKey.readPublic(pem: pem), keyID: keyID)
    }

    /// Wraps a P-256 key OpenSSL already holds (from a certificate or a private key).
    init(key: EVPKey, keyID: String?) throws {
        guard key.isP256 else { throw CryptoError(.unsupportedAlgorithm, "EC key: not a P-256 key") }
        let info = try key.subjectPublicKeyInfo()
        // An uncompressed point after the fixed prefix: 0x04, then x and y.
        let pointStart = DER.p256PublicKeyPrefix.count
        guard info.count == pointStart + 1 + 2 * Self.coordinateLength,
              info.starts(with: DER.p256PublicKeyPrefix), info[pointStart] == 0x04 else {
            throw CryptoError(.malformed, "EC key: unexpected public key encoding")
        }
        let x = Array(info[(pointStart + 1)...].prefix(Self.coordinateLength))
        let y = Array(info.suffix(Self.coordinateLength))
        self.init(key: key, x: x, y: y, keyID: keyID)
    }

    private init(key: EVPKey, x: [UInt8], y: [UInt8], keyID: String?) {
        self.key = key
        self.x = x
        self.y = y
        self.keyID = keyID ?? Self.thumbprint(x: x, y: y)
    }

    /// The public key as a JWK object with `kty`, `crv`, `x`, `y`, `kid`, `use` "sig" and
    /// `alg` "ES256".
    package var jwk: [String: JSONValue] {
        ["kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(self.x)), "y": .string(Base64URL.encode(self.y)),
         "kid": .string(self.keyID), "use": "sig", "alg": "ES256"]
    }

    /// The public key as a PEM "PUBLIC KEY" block.
    package func pemBytes() throws -> [UInt8] {
        let der = try self.key.subjectPublicKeyInfo()
        let body = Array(Data(der).base64EncodedString().utf8)
        let lines = stride(from: 0, to: body.count, by: 64).map { start in
            String(decoding: body[start..<min(start + 64, body.count)], as: UTF8.self)
        }
        let text = (["-----BEGIN PUBLIC KEY-----"] + lines + ["-----END PUBLIC KEY-----", ""]).joined(separator: "\n")
        return Array(text.utf8)
    }

    /// Whether `signature` (JOSE form: r‖s, 64 bytes) signs `message` under this key.
    package func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == 2 * Self.coordinateLength else { return false }
        let der = DER.ecdsaSignature(raw: signature, width: Self.coordinateLength)
        return self.key.verifySHA256(signature: der, message: message)
    }

    /// The RFC 7638 JWK thumbprint: base64url SHA-256 of `{"crv","kty","x","y"}` in that order.
    static func thumbprint(x: [UInt8], y: [UInt8]) -> String {
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(Base64URL.encode(x))","y":"\#(Base64URL.encode(y))"}"#
        return Base64URL.encode(SHA256Digest.hash(Array(canonical.utf8)))
    }
}
