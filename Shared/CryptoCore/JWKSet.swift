/// A set of public keys by `kid` (a JWK Set, RFC 7517 §5): a provider's keys or our own.
package struct JWKSet: Sendable {
    /// The keys in the order they were given.
    package let keys: [JWK]
    private let keysByID: [String: JWK]

    /// The largest JWKS text we parse; providers publish a few kilobytes.
    package static let maximumLength = 256 * 1024

    /// A set of the given keys; throws `.malformed` if two share a `kid`.
    package init(keys: [JWK]) throws {
        var keysByID: [String: JWK] = [:]
        for key in keys {
            guard keysByID.updateValue(key, forKey: key.keyID) == nil else {
                throw CryptoError(.malformed, "JWKS: duplicate kid")
            }
        }
        self.keys = keys
        self.keysByID = keysByID
    }

    /// Parses JWKS JSON text (`{"keys": [...]}`), skipping keys we cannot use (see `JWK.parse`).
    ///
    /// Throws `.malformed` for text that is not a JWKS, a supported key with bad fields, or a
    /// duplicate `kid`.
    package init(json: [UInt8]) throws {
        guard json.count <= Self.maximumLength else { throw CryptoError(.malformed, "JWKS: too large") }
        guard let entries = try JSONValue.parseObject(json)["keys"]?.arrayValue else {
            throw CryptoError(.malformed, "JWKS: no keys array")
        }
        var keys: [JWK] = []
        for entry in entries {
            guard let object = entry.objectValue else { throw CryptoError(.malformed, "JWKS: key is not an object") }
            if let key = try JWK.parse(object) { keys.append(key) }
        }
        try self.init(keys: keys)
    }

    /// Parses JWKS JSON text.
    package init(json: String) throws {
        try self.init(json: Array(json.utf8))
    }

    /// The set of our own signing keys' public halves, for `GetSigningKeys`.
    package init(signingKeys: [ECSigningKey]) throws {
        try self.init(keys: signingKeys.map { .ec($0.verifyingKey) })
    }

    /// The key with `keyID`, if the set holds it.
    package subscript(keyID: String) -> JWK? {
        self.keysByID[keyID]
    }

    /// The set as JWKS JSON text, keys in order.
    package func jsonBytes() -> [UInt8] {
        JSONValue.object(["keys": .array(self.keys.map { .object($0.jsonObject) })]).serialized()
    }
}
