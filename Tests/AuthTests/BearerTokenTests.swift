@testable import Auth
import Testing

/// The `authorization` header's bearer token, as `AuthInterceptor` reads it (RFC 6750).
@Suite struct BearerTokenTests {
    @Test(arguments: [
        ("Bearer abc.def.ghi", "abc.def.ghi"),
        ("bearer abc", "abc"),
        ("BEARER  abc \t", "abc"),
        ("Bearer \t x y ", "x y"),
    ])
    func bearer_isTheTokenWithoutSurroundingBlanks(header: String, token: String) {
        #expect(AuthInterceptor.bearerToken(header) == token)
    }

    @Test(arguments: ["Bearer", "Bearer    ", "Bearer \t ", "Basic abc", "", "abc"])
    func anythingElse_hasNoToken(header: String) {
        #expect(AuthInterceptor.bearerToken(header) == nil)
    }
}
