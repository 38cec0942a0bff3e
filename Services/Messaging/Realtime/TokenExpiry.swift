import CryptoCore
import RPC

/// When a call's access token expires, read from its `exp` claim. The `AuthInterceptor`
/// verified the token before the handler runs; this only reads it again, so that a stream
/// opened with it ends when it expires (unary calls end long before).
enum TokenExpiry {
    /// Unix seconds of the call's token's `exp`, nil without a readable bearer token.
    static func seconds(of context: ServerCallContext) -> Int64? {
        context.requestMetadata[string: "authorization"].flatMap(seconds(ofHeader:))
    }

    /// Unix seconds of the `exp` of the token in an `authorization: Bearer …` header.
    static func seconds(ofHeader header: String) -> Int64? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let segments = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let payload = try? Base64URL.decode(segments[1]),
              let claims = try? JWTClaims(payload: payload) else { return nil }
        return claims.numericDate("exp")
    }
}
