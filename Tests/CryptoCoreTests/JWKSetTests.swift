import Testing
@testable import CryptoCore

@Suite struct JWKSetTests {
    static let ecJWK = #"{"kty":"EC","crv":"P-256","kid":"ec1","use":"sig","x":"\#(JOSEVectors.es256X)","y":"\#(JOSEVectors.es256Y)"}"#
    static let rsaJWK = #"{"kty":"RSA","kid":"rsa1","alg":"RS256","n":"\#(JOSEVectors.rs256N)","e":"AQAB"}"#

    @Test func parse_keepsSupportedKeys_skipsOthers() throws {
        let json = #"{"keys":[\#(Self.ecJWK),\#(Self.rsaJWK),{"kty":"oct","k":"c2VjcmV0","kid":"hmac"},"#
            + #"{"kty":"EC","crv":"P-384","kid":"p384","x":"AA","y":"AA"},{"kty":"OKP","crv":"Ed25519","x":"AA","kid":"ed"},"#
            + #"{"kty":"RSA","kid":"enc","use":"enc","n":"AA","e":"AQAB"},{"kty":"RSA","kid":"ps","alg":"PS256","n":"AA","e":"AQAB"}]}"#
        let set = try JWKSet(json: json)
        #expect(set.keys.map { $0.keyID } == ["ec1", "rsa1"])
        #expect(set["ec1"]?.algorithm == .es256 && set["rsa1"]?.algorithm == .rs256)
        #expect(set["hmac"] == nil)
    }

    @Test(arguments: [
        "", "[]", "{}", #"{"keys":{}}"#, #"{"keys":[1]}"#, "{\"keys\":[\(ecJWK),\(ecJWK)]}",
        #"{"keys":[{"kty":"EC","crv":"P-256","kid":"bad","x":"AA","y":"AA"}]}"#,
        #"{"keys":[{"kty":"RSA","kid":"bad","n":"!!","e":"AQAB"}]}"#,
    ])
    func parse_bad_throwsMalformed(_ json: String) {
        #expect { try JWKSet(json: json) } throws: { ($0 as? CryptoError)?.code == .malformed }
    }

    @Test func duplicateKid_acrossTypes_throws() throws {
        let key = try ECSigningKey.generate(keyID: "2010-12-29")
        let rsaKey = try RSAVerifyingKeyTests.a2Key()
        #expect { try JWKSet(keys: [.ec(key.verifyingKey), .rsa(rsaKey)]) } throws: {
            ($0 as? CryptoError)?.code == .malformed
        }
        #expect { try JWKSet(json: "{\"keys\":[\(Self.rsaJWK),\(Self.rsaJWK)]}") } throws: {
            ($0 as? CryptoError)?.code == .malformed
        }
    }

    @Test func serialise_ourKeys_roundTrips() throws {
        let first = try ECSigningKey.generate(keyID: "2026-01")
        let second = try ECSigningKey.generate()
        let set = try JWKSet(signingKeys: [first, second])
        let text = String(decoding: set.jsonBytes(), as: UTF8.self)
        #expect(!text.contains("\"d\""))
        let reparsed = try JWKSet(json: set.jsonBytes())
        #expect(reparsed.keys.map { $0.keyID } == ["2026-01", second.keyID])
        guard case .ec(let key)? = reparsed["2026-01"] else { Issue.record("missing key"); return }
        #expect(key.x == first.verifyingKey.x && key.y == first.verifyingKey.y)
    }
}
