import Testing
@testable import CryptoCore

@Suite struct ECKeyTests {
    @Test func generate_signAndVerify_manyMessages() throws {
        let key = try ECSigningKey.generate()
        // Enough signatures that some r or s have a high bit or leading zero bytes in DER.
        for index in 0..<64 {
            let message = Array("message \(index)".utf8)
            let signature = try key.signature(for: message)
            #expect(signature.count == 64)
            #expect(key.verifyingKey.isValidSignature(signature, for: message))
            #expect(!key.verifyingKey.isValidSignature(signature, for: message + [0]))
        }
    }

    @Test func isValidSignature_wrongLengthOrZero_isFalse() throws {
        let key = try ECSigningKey.generate()
        let signature = try key.signature(for: [1, 2, 3])
        #expect(!key.verifyingKey.isValidSignature(Array(signature.dropLast()), for: [1, 2, 3]))
        #expect(!key.verifyingKey.isValidSignature(signature + [0], for: [1, 2, 3]))
        #expect(!key.verifyingKey.isValidSignature([UInt8](repeating: 0, count: 64), for: [1, 2, 3]))
        #expect(!key.verifyingKey.isValidSignature([UInt8](repeating: 0xFF, count: 64), for: [1, 2, 3]))
    }

    @Test func pem_roundTrip_keepsKeyAndID() throws {
        let key = try ECSigningKey.generate()
        let pem = try key.pemBytes()
        #expect(String(decoding: pem, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try ECSigningKey(pem: pem)
        #expect(reloaded.verifyingKey.x == key.verifyingKey.x && reloaded.verifyingKey.y == key.verifyingKey.y)
        #expect(reloaded.keyID == key.keyID)
        let signature = try reloaded.signature(for: [9])
        #expect(key.verifyingKey.isValidSignature(signature, for: [9]))
    }

    @Test func publicPEM_roundTrip() throws {
        let key = try ECSigningKey.generate(keyID: "k1")
        let pem = try key.verifyingKey.pemBytes()
        let reloaded = try ECVerifyingKey(pem: pem, keyID: "k1")
        #expect(reloaded.x == key.verifyingKey.x && reloaded.y == key.verifyingKey.y)
    }

    @Test func jwk_roundTrip_andExplicitKeyID() throws {
        let key = try ECSigningKey.generate(keyID: "2026-01")
        let jwk = key.verifyingKey.jwk
        #expect(jwk["kty"] == "EC" && jwk["crv"] == "P-256" && jwk["kid"] == "2026-01" && jwk["alg"] == "ES256")
        let reloaded = try ECVerifyingKey(jwk: jwk)
        #expect(reloaded.keyID == "2026-01" && reloaded.x == key.verifyingKey.x)
    }

    @Test func rfc7515A3_verifies() throws {
        let key = try ECVerifyingKey(jwk: ["kty": "EC", "crv": "P-256", "x": .string(JOSEVectors.es256X),
                                           "y": .string(JOSEVectors.es256Y)])
        let parsed = try JWS.parse(JOSEVectors.es256Token, allowedAlgorithms: [.es256])
        #expect(key.isValidSignature(parsed.signature, for: parsed.signingInput))
        #expect(try JWTClaims(payload: parsed.payload).int64("exp") == 1_300_819_380)
    }

    @Test func pointOffCurve_throwsMalformed() throws {
        let x = try Base64URL.decode(JOSEVectors.es256X)
        #expect { try ECVerifyingKey(x: x, y: x) } throws: { ($0 as? CryptoError)?.code == .malformed }
        #expect { try ECVerifyingKey(x: x, y: Array(x.dropLast())) } throws: { ($0 as? CryptoError)?.code == .malformed }
    }

    @Test(arguments: [
        (["kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"], CryptoError.Code.unsupportedAlgorithm),
        (["kty": "RSA", "n": "AA", "e": "AQAB"], .unsupportedAlgorithm),
        (["kty": "EC", "crv": "P-256", "x": .string(JOSEVectors.es256X)], .malformed),
        (["kty": "EC", "crv": "P-256", "x": "!!", "y": .string(JOSEVectors.es256Y)], .malformed),
        (["kty": "EC", "crv": "P-256", "x": .string(JOSEVectors.es256X), "y": .string(JOSEVectors.es256Y), "kid": 7], .malformed),
    ] as [([String: JSONValue], CryptoError.Code)])
    func jwk_bad_throws(_ jwk: [String: JSONValue], _ code: CryptoError.Code) {
        #expect { try ECVerifyingKey(jwk: jwk) } throws: { ($0 as? CryptoError)?.code == code }
    }

    @Test func signingKeyPEM_garbage_throwsMalformedWithoutEcho() {
        let secret = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END PRIVATE KEY-----\n"
        #expect { try ECSigningKey(pem: Array(secret.utf8)) } throws: { error in
            guard let error = error as? CryptoError else { return false }
            return error.code == .malformed && !error.description.contains("c2VjcmV0")
        }
    }

    @Test func thumbprint_isRFC7638() throws {
        // RFC 7638 §3.1 example key and thumbprint.
        let key = try RSAVerifyingKey(jwk: [
            "kty": "RSA", "e": "AQAB",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
        ])
        #expect(key.keyID == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }
}

@Suite struct RSAVerifyingKeyTests {
    static func a2Key() throws -> RSAVerifyingKey {
        try RSAVerifyingKey(jwk: ["kty": "RSA", "n": .string(JOSEVectors.rs256N), "e": .string(JOSEVectors.rs256E),
                                  "kid": "2010-12-29"])
    }

    @Test func rfc7515A2_verifies_andTamperingFails() throws {
        let key = try Self.a2Key()
        let parsed = try JWS.parse(JOSEVectors.rs256Token, allowedAlgorithms: [.rs256])
        #expect(key.isValidSignature(parsed.signature, for: parsed.signingInput))
        #expect(!key.isValidSignature(parsed.signature, for: parsed.signingInput + [0x20]))
        var flipped = parsed.signature
        flipped[100] ^= 1
        #expect(!key.isValidSignature(flipped, for: parsed.signingInput))
        #expect(!key.isValidSignature(Array(parsed.signature.dropFirst()), for: parsed.signingInput))
    }

    @Test func jwk_roundTrip() throws {
        let key = try Self.a2Key()
        #expect(key.jwk["n"]?.stringValue == JOSEVectors.rs256N && key.jwk["e"] == "AQAB" && key.keyID == "2010-12-29")
        #expect(key.modulus.count == 256)
    }

    @Test func weakOrOddKeys_throwInvalidParameters() throws {
        let modulus1024 = [0xC0] + [UInt8](repeating: 0x55, count: 127)
        let n = try Base64URL.decode(JOSEVectors.rs256N)
        let cases: [([UInt8], [UInt8])] = [
            (modulus1024, [1, 0, 1]), (n, [1, 0, 0]), (n, [1]), (n, []), (n, [UInt8](repeating: 1, count: 9)),
            ([UInt8](repeating: 0xFF, count: 1025), [1, 0, 1]),
        ]
        for (modulus, exponent) in cases {
            #expect { try RSAVerifyingKey(modulus: modulus, exponent: exponent) } throws: {
                ($0 as? CryptoError)?.code == .invalidParameters
            }
        }
    }
}
