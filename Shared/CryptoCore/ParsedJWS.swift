/// A JWS in compact serialization (RFC 7515 §7.1), decoded and checked for shape but not yet
/// for its signature. Use its fields only to pick a key or after `JWS.verify` succeeds.
package struct ParsedJWS: Sendable {
    /// The protected header's members.
    package var header: [String: JSONValue]
    /// The header's `alg`, one of the caller's allowed algorithms.
    package var algorithm: JWSAlgorithm
    /// The header's `kid`, if any.
    package var keyID: String?
    /// The decoded payload bytes.
    package var payload: [UInt8]
    /// `base64url(header) "." base64url(payload)`: the bytes the signature covers.
    package var signingInput: [UInt8]
    /// The decoded signature bytes.
    package var signature: [UInt8]
}
