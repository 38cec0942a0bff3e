import CryptoCore
@testable import Messaging
import Testing

/// Reading a stream's end from its token.
@Suite struct TokenExpiryTests {
    @Test func theExpiry_isTheTokensExpClaim() throws {
        let payload = Base64URL.encode(Array(#"{"sub":"a","exp":1900000000}"#.utf8))
        #expect(TokenExpiry.seconds(ofHeader: "Bearer e30.\(payload).sig") == 1_900_000_000)
        #expect(TokenExpiry.seconds(ofHeader: "bearer e30.\(payload).sig") == 1_900_000_000)
    }

    @Test(arguments: ["", "Bearer", "Basic abc", "Bearer abc", "Bearer a.!!!.c", "Bearer e30.e30.sig"])
    func aHeaderWithoutAReadableExp_hasNone(_ header: String) {
        #expect(TokenExpiry.seconds(ofHeader: header) == nil)
    }
}
