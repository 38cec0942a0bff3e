/// The JWS algorithms we accept (RFC 7518 §3.1). `none` and the HMAC algorithms are absent on
/// purpose: a token naming them never parses.
package enum JWSAlgorithm: String, Hashable, Sendable, CaseIterable {
    /// ECDSA P-256 with SHA-256: our access tokens, Apple's App Store and some Apple ID tokens.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256: Apple and Google ID tokens.
    case rs256 = "RS256"
}
