/// A public key from a JWK Set (RFC 7517), tied to the one algorithm its type allows.
package enum JWK: Sendable {
    case ec(ECVerifyingKey)
    case rsa(RSAVerifyingKey)

    /// The key's `kid`.
    package var keyID: String {
        switch self {
        case .ec(let key): key.keyID
        case .rsa(let key): key.keyID
        }
    }

    /// The only algorithm this key verifies: ES256 for P-256, RS256 for RSA. A token whose `alg`
    /// differs is refused, so the token never chooses how its key is used.
    package var algorithm: JWSAlgorithm {
        switch self {
        case .ec: .es256
        case .rsa: .rs256
        }
    }

    /// The key as a JWK object.
    package var jsonObject: [String: JSONValue] {
        switch self {
        case .ec(let key): key.jwk
        case .rsa(let key): key.jwk
        }
    }

    /// Whether `signature` signs `message` under this key with `algorithm`.
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch self {
        case .ec(let key): key.isValidSignature(signature, for: message)
        case .rsa(let key): key.isValidSignature(signature, for: message)
        }
    }

    /// The key a JWK object describes; nil for keys we skip: other key types or curves, keys
    /// for encryption (`use` other than "sig") and keys for another `alg`.
    ///
    /// Throws `.malformed` for a supported key with bad fields.
    package static func parse(_ object: [String: JSONValue]) throws -> JWK? {
        if let use = object["use"], use.stringValue != "sig" { return nil }
        let declared = object["alg"]
        switch object["kty"]?.stringValue {
        case "EC":
            guard object["crv"]?.stringValue == "P-256", declared == nil || declared == "ES256" else { return nil }
            return .ec(try ECVerifyingKey(jwk: object))
        case "RSA":
            guard declared == nil || declared == "RS256" else { return nil }
            return .rsa(try RSAVerifyingKey(jwk: object))
        default:
            return nil
        }
    }

    /// A JWK's `kid` if present; throws `.malformed` if it is not a non-empty string.
    static func keyID(in object: [String: JSONValue]) throws -> String? {
        guard let value = object["kid"] else { return nil }
        guard let keyID = value.stringValue, !keyID.isEmpty else {
            throw CryptoError(.malformed, "JWK: kid must be a non-empty string")
        }
        return keyID
    }
}
