/// JSON Web Tokens (RFC 7519) signed as a compact JWS.
package enum JWT {
    /// Signs `claims` with `key` as an ES256 JWT (header `typ` "JWT", `alg`, `kid`).
    package static func sign(claims: JWTClaims, key: ECSigningKey) throws -> String {
        try JWS.sign(header: ["typ": "JWT"], payload: claims.serialized(), key: key)
    }
}
