import Testing
@testable import CryptoCore

/// Our JOSE against joserfc and `cryptography` (Fixtures/jose_crosscheck.py), both directions.
@Suite(.enabled(if: PythonJOSE.isAvailable))
struct JOSECrossCheckTests {
    static let claims: JWTClaims = ["iss": "https://accounts.google.com", "sub": "1234", "aud": "client.apps",
                                    "exp": 2_000_000_000, "nonce": "abc", "email_verified": true]

    @Test func ourES256Token_verifiesInJoserfc() throws {
        let key = try ECSigningKey.generate()
        let token = try JWT.sign(claims: Self.claims, key: key)
        let jwks = try JSONValue.parse(JWKSet(signingKeys: [key]).jsonBytes())
        let reply = try PythonJOSE.call("verify", ["token": .string(token), "jwks": jwks])
        #expect(reply["error"] == nil)
        #expect(reply["claims"] == .object(Self.claims.values))
        #expect(reply["header"]?.objectValue?["kid"] == .string(key.keyID))
    }

    @Test func ourTamperedToken_isRefusedByJoserfcToo() throws {
        let key = try ECSigningKey.generate()
        let parts = try JWT.sign(claims: Self.claims, key: key).split(separator: ".").map(String.init)
        var other = Self.claims
        other["sub"] = "9999"
        let token = [parts[0], Base64URL.encode(other.serialized()), parts[2]].joined(separator: ".")
        let jwks = try JSONValue.parse(JWKSet(signingKeys: [key]).jsonBytes())
        let reply = try PythonJOSE.call("verify", ["token": .string(token), "jwks": jwks])
        #expect(reply["error"] != nil)
    }

    @Test(arguments: ["sign-es256", "sign-rs256"])
    func joserfcToken_verifiesWithOurs(_ command: String) throws {
        let reply = try PythonJOSE.call(command, ["claims": .object(Self.claims.values), "kid": "provider-1"])
        guard let token = reply["token"]?.stringValue, let jwks = reply["jwks"] else {
            Issue.record("bad fixture reply")
            return
        }
        let keys = try JWKSet(json: jwks.serialized())
        let verified = try JWS.verify(token: token, keys: keys)
        #expect(verified.algorithm == (command == "sign-es256" ? .es256 : .rs256))
        let claims = try verified.claims()
        #expect(claims == Self.claims)
        try JWTClaimsValidator(issuers: ["https://accounts.google.com"], audiences: ["client.apps"])
            .validate(claims, now: .init(timeIntervalSince1970: 1_900_000_000), nonce: "abc")

        // Same token, one payload byte changed: refused.
        let parts = token.split(separator: ".").map(String.init)
        var payload = try Base64URL.decode(parts[1])
        payload[payload.count - 2] ^= 0x01
        let tampered = [parts[0], Base64URL.encode(payload), parts[2]].joined(separator: ".")
        #expect { try JWS.verify(token: tampered, keys: keys) } throws: { ($0 as? CryptoError)?.code == .badSignature }
    }

    @Test func ourPKCS8PEM_loadsInCryptography() throws {
        let key = try ECSigningKey.generate()
        let reply = try PythonJOSE.call("pem-to-jwk", ["pem": .string(String(decoding: try key.pemBytes(), as: UTF8.self))])
        #expect(reply["x"]?.stringValue == Base64URL.encode(key.verifyingKey.x))
        #expect(reply["y"]?.stringValue == Base64URL.encode(key.verifyingKey.y))
    }
}
