/// A JWS whose signature has been checked against a trusted key.
package struct VerifiedJWS: Sendable {
    /// The protected header's members.
    package var header: [String: JSONValue]
    /// The algorithm the signature was checked with.
    package var algorithm: JWSAlgorithm
    /// The `kid` of the key that verified it (the header's `kid`; nil for x5c-verified tokens).
    package var keyID: String?
    /// The payload bytes.
    package var payload: [UInt8]

    /// The payload as JWT claims; throws `.malformed` unless it is a JSON object.
    package func claims() throws -> JWTClaims {
        try JWTClaims(payload: self.payload)
    }
}
