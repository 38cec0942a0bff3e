import Testing
@testable import CryptoCore

@Suite struct JWSTests {
    static let claims: JWTClaims = ["iss": "rendezvous", "sub": "acct_1", "aud": ["elite"], "exp": 2_000_000_000]

    /// A token with a hand-made header and signature, for attacks our signer would never produce.
    static func forge(header: JSONValue, payload: [UInt8] = claims.serialized(), signature: [UInt8]) -> String {
        Base64URL.encode(header.serialized()) + "." + Base64URL.encode(payload) + "." + Base64URL.encode(signature)
    }

    @Test func sign_verify_roundTrip() throws {
        let key = try ECSigningKey.generate()
        let token = try JWT.sign(claims: Self.claims, key: key)
        let verified = try JWS.verify(token: token, keys: JWKSet(signingKeys: [key]))
        #expect(verified.algorithm == .es256 && verified.keyID == key.keyID)
        #expect(verified.header["typ"] == "JWT" && verified.header["alg"] == "ES256")
        #expect(try verified.claims() == Self.claims)
        #expect(try verified.claims().strings("aud") == ["elite"])
    }

    @Test func sign_headerCannotOverrideAlgOrKid() throws {
        let key = try ECSigningKey.generate()
        let token = try JWS.sign(header: ["alg": "none", "kid": "other", "x": 1], payload: [1], key: key)
        let parsed = try JWS.parse(token, allowedAlgorithms: [.es256])
        #expect(parsed.keyID == key.keyID && parsed.header["x"] == 1)
    }

    @Test func rfc7515Examples_parseWithoutKid_soVerifyNeedsOne() throws {
        let keys = try JWKSet(json: #"{"keys":[{"kty":"EC","crv":"P-256","kid":"a3","x":"\#(JOSEVectors.es256X)","y":"\#(JOSEVectors.es256Y)"}]}"#)
        #expect { try JWS.verify(token: JOSEVectors.es256Token, keys: keys) } throws: {
            ($0 as? CryptoError)?.code == .unknownKeyID
        }
    }

    @Test func tampering_isBadSignature() throws {
        let key = try ECSigningKey.generate()
        let other = try ECSigningKey.generate(keyID: key.keyID)
        let keys = try JWKSet(signingKeys: [key])
        let token = try JWT.sign(claims: Self.claims, key: key)
        let parts = token.split(separator: ".").map(String.init)
        var escalated = Self.claims
        escalated["sub"] = "admin"
        let anotherToken = try JWT.sign(claims: escalated, key: key)
        let anotherParts = anotherToken.split(separator: ".").map(String.init)
        let forgedHeader = Base64URL.encode(JSONValue.object(["alg": "ES256", "kid": .string(key.keyID), "typ": "JWS"]).serialized())
        let tampered = [
            [parts[0], Base64URL.encode(escalated.serialized()), parts[2]],  // payload changed
            [forgedHeader, parts[1], parts[2]],                              // header changed
            [parts[0], parts[1], anotherParts[2]],                           // signature of another token
            [anotherParts[0], parts[1], anotherParts[2]],
            try JWT.sign(claims: Self.claims, key: other).split(separator: ".").map(String.init),  // same kid, other key
            [parts[0], parts[1], ""],                                        // no signature
        ]
        for candidate in tampered {
            #expect { try JWS.verify(token: candidate.joined(separator: "."), keys: keys) } throws: {
                ($0 as? CryptoError)?.code == .badSignature
            }
        }
    }

    @Test func algConfusion_isRejectedBeforeSignatureCheck() throws {
        let ecKey = try ECSigningKey.generate(keyID: "ec")
        let rsaKey = try RSAVerifyingKeyTests.a2Key()
        let keys = try JWKSet(keys: [.ec(ecKey.verifyingKey), .rsa(rsaKey)])
        let publicPEM = try ecKey.verifyingKey.pemBytes()
        let payload = Self.claims.serialized()
        let hsHeader: JSONValue = ["alg": "HS256", "kid": "ec"]
        let hsInput = Array((Base64URL.encode(hsHeader.serialized()) + "." + Base64URL.encode(payload)).utf8)
        let attacks = [
            Self.forge(header: ["alg": "none", "kid": "ec"], signature: []),
            Self.forge(header: ["alg": "None", "kid": "ec"], signature: []),
            Self.forge(header: hsHeader, signature: HMACSHA256.authenticate(key: publicPEM, message: hsInput)),
            Self.forge(header: ["alg": "RS256", "kid": "ec"], signature: [UInt8](repeating: 7, count: 256)),
            Self.forge(header: ["alg": "ES256", "kid": "2010-12-29"], signature: [UInt8](repeating: 7, count: 64)),
            Self.forge(header: ["alg": "PS256", "kid": "2010-12-29"], signature: [UInt8](repeating: 7, count: 256)),
            Self.forge(header: ["alg": "ES384", "kid": "ec"], signature: [UInt8](repeating: 7, count: 96)),
        ]
        for token in attacks {
            #expect { try JWS.verify(token: token, keys: keys) } throws: {
                ($0 as? CryptoError)?.code == .unsupportedAlgorithm
            }
        }
        // An allow-list narrower than the key set also refuses.
        let valid = try JWT.sign(claims: Self.claims, key: ecKey)
        #expect { try JWS.verify(token: valid, keys: keys, allowedAlgorithms: [.rs256]) } throws: {
            ($0 as? CryptoError)?.code == .unsupportedAlgorithm
        }
    }

    @Test func rs256Token_presentedToECKeyWithSameKid_isRejected() throws {
        // The RFC 7515 A.2 token is a genuine RS256 signature; give it an EC key's kid.
        let ecKey = try ECSigningKey.generate(keyID: "shared")
        let keys = try JWKSet(keys: [.ec(ecKey.verifyingKey)])
        let parts = JOSEVectors.rs256Token.split(separator: ".")
        let header = Base64URL.encode(JSONValue.object(["alg": "RS256", "kid": "shared"]).serialized())
        let token = [header, String(parts[1]), String(parts[2])].joined(separator: ".")
        #expect { try JWS.verify(token: token, keys: keys) } throws: { ($0 as? CryptoError)?.code == .unsupportedAlgorithm }
    }

    @Test func unknownOrMissingKid_isUnknownKeyID() throws {
        let key = try ECSigningKey.generate()
        let keys = try JWKSet(signingKeys: [try ECSigningKey.generate()])
        let token = try JWT.sign(claims: Self.claims, key: key)
        #expect { try JWS.verify(token: token, keys: keys) } throws: { ($0 as? CryptoError)?.code == .unknownKeyID }
        let noKid = Self.forge(header: ["alg": "ES256"], signature: [UInt8](repeating: 1, count: 64))
        #expect { try JWS.verify(token: noKid, keys: keys) } throws: { ($0 as? CryptoError)?.code == .unknownKeyID }
    }

    static let malformed: [String] = [
        "", "a", "a.b", "a.b.c.d", "eyJhbGciOiJFUzI1NiJ9.e30.AA==",
        "eyJhbGciOiJFUzI1NiJ9.e+30.AAAA", "!!.e30.AAAA",
        forge(header: "ES256", signature: [1]),
        forge(header: ["typ": "JWT"], signature: [1]),
        forge(header: ["alg": 256], signature: [1]),
        forge(header: ["alg": "ES256", "kid": 1], signature: [1]),
        forge(header: ["alg": "ES256", "kid": "k", "crit": ["exp"], "exp": 1], signature: [1]),
        Base64URL.encode(Array("not json".utf8)) + ".e30.AAAA",
        forge(header: ["alg": "ES256"], payload: [UInt8](repeating: 0x41, count: 13_000), signature: [1]),
    ]

    @Test(arguments: malformed)
    func parse_malformed_throwsMalformed(_ token: String) {
        #expect { try JWS.parse(token, allowedAlgorithms: [.es256]) } throws: { ($0 as? CryptoError)?.code == .malformed }
    }

    @Test func parse_maximumLength_isCallerChosen() throws {
        let key = try ECSigningKey.generate()
        let token = try JWS.sign(payload: [UInt8](repeating: 0x41, count: 20_000), key: key)
        #expect(throws: CryptoError.self) { try JWS.parse(token, allowedAlgorithms: [.es256]) }
        #expect(try JWS.parse(token, allowedAlgorithms: [.es256], maximumLength: 64 * 1024).payload.count == 20_000)
    }

    @Test func errors_neverQuoteTheToken() throws {
        let key = try ECSigningKey.generate()
        let token = try JWT.sign(claims: Self.claims, key: key)
        let signature = String(token.split(separator: ".")[2])
        do {
            _ = try JWS.verify(token: token + "A", keys: JWKSet(signingKeys: [key]))
            Issue.record("expected an error")
        } catch let error as CryptoError {
            #expect(!error.description.contains(signature.prefix(16)))
            #expect(!error.description.contains("acct_1"))
        }
    }
}
