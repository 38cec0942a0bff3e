import Foundation
import Testing
@testable import CryptoCore

@Suite struct X509ChainVerifierTests {
    static let transaction: JWTClaims = [
        "transactionId": "2000000123456789", "productId": "elite.black.monthly", "expiresDate": 1_900_000_000_000,
    ]

    /// A signed transaction the way the App Store sends one: ES256, the chain in `x5c`.
    static func signTransaction(_ chain: TestCertificates.Chain, payload: [UInt8] = transaction.serialized(),
                                x5c: [[UInt8]]? = nil) throws -> String {
        let key = try ECSigningKey(pem: chain.leafPrivateKeyPEM)
        let certificates = (x5c ?? chain.chainDER).map { JSONValue.string(Data($0).base64EncodedString()) }
        return try JWS.sign(header: ["x5c": .array(certificates)], payload: payload, key: key)
    }

    @Test func verify_validChain_returnsLeafKey() throws {
        let chain = try TestCertificates.makeChain()
        let leafKey = try X509ChainVerifier.verify(chain: chain.chainDER, trustedRootsPEM: chain.rootPEM, at: nil)
        let expected = try ECSigningKey(pem: chain.leafPrivateKeyPEM).verifyingKey
        #expect(leafKey.x == expected.x && leafKey.y == expected.y)
        // Without the root at the end, as some senders do.
        _ = try X509ChainVerifier.verify(chain: Array(chain.chainDER.prefix(2)), trustedRootsPEM: chain.rootPEM, at: nil)
    }

    /// Another certificate under the same root (an Apple Pay certificate under Apple's, say)
    /// must not pass for the App Store's: without the markers, its chain is untrusted.
    @Test func markers_areRequiredAtTheirDepths() throws {
        let marked = try TestCertificates.makeChain()
        let unmarked = try TestCertificates.makeChain(appStoreMarkers: false)
        let markers = X509ChainVerifier.appStoreMarkers
        _ = try X509ChainVerifier.verify(chain: marked.chainDER, trustedRootsPEM: marked.rootPEM, at: nil, markers: markers)
        #expect(throws: CryptoError.self) {
            try X509ChainVerifier.verify(chain: unmarked.chainDER, trustedRootsPEM: unmarked.rootPEM, at: nil, markers: markers)
        }
        do {
            _ = try JWS.verify(token: try Self.signTransaction(unmarked), x5cRootsPEM: unmarked.rootPEM, markers: markers)
            Issue.record("a chain without the markers verified")
        } catch let error as CryptoError {
            #expect(error.code == .untrustedChain)
        }
        // The markers are checked where they belong: the intermediate's at depth 1 is not the leaf's.
        #expect(throws: CryptoError.self) {
            try X509ChainVerifier.verify(chain: marked.chainDER, trustedRootsPEM: marked.rootPEM, at: nil,
                                         markers: [0: markers[1]!])
        }
        // Without markers asked for, any chain to the root verifies, as before.
        _ = try X509ChainVerifier.verify(chain: unmarked.chainDER, trustedRootsPEM: unmarked.rootPEM, at: nil)
    }

    @Test func jwsX5C_signedTransaction_verifies() throws {
        let chain = try TestCertificates.makeChain()
        let token = try Self.signTransaction(chain)
        let verified = try JWS.verify(token: token, x5cRootsPEM: chain.rootPEM)
        #expect(try verified.claims() == Self.transaction)
    }

    @Test func jwsX5C_wrongRoot_isUntrustedChain() throws {
        let chain = try TestCertificates.makeChain()
        let otherRoot = try TestCertificates.makeChain().rootPEM
        let token = try Self.signTransaction(chain)
        #expect { try JWS.verify(token: token, x5cRootsPEM: otherRoot) } throws: {
            ($0 as? CryptoError)?.code == .untrustedChain
        }
    }

    @Test func jwsX5C_expiredLeaf_isExpired_butVerifiesAtSigningTime() throws {
        let chain = try TestCertificates.makeChain(leafNotBefore: -3 * 86_400, leafNotAfter: -86_400)
        let token = try Self.signTransaction(chain)
        #expect { try JWS.verify(token: token, x5cRootsPEM: chain.rootPEM) } throws: {
            ($0 as? CryptoError)?.code == .expired
        }
        _ = try JWS.verify(token: token, x5cRootsPEM: chain.rootPEM, at: Date().addingTimeInterval(-2 * 86_400))
    }

    @Test func jwsX5C_leafNotYetValid_isNotYetValid() throws {
        let chain = try TestCertificates.makeChain(leafNotBefore: 86_400, leafNotAfter: 2 * 86_400)
        let token = try Self.signTransaction(chain)
        #expect { try JWS.verify(token: token, x5cRootsPEM: chain.rootPEM) } throws: {
            ($0 as? CryptoError)?.code == .notYetValid
        }
    }

    @Test func jwsX5C_tamperedPayload_orSwappedSignature_isBadSignature() throws {
        let chain = try TestCertificates.makeChain()
        let parts = try Self.signTransaction(chain).split(separator: ".").map(String.init)
        var upgraded = Self.transaction
        upgraded["productId"] = "elite.black.lifetime"
        let other = try Self.signTransaction(chain, payload: upgraded.serialized()).split(separator: ".").map(String.init)
        let tampered = [parts[0], Base64URL.encode(upgraded.serialized()), parts[2]].joined(separator: ".")
        let swapped = [parts[0], parts[1], other[2]].joined(separator: ".")
        for token in [tampered, swapped] {
            #expect { try JWS.verify(token: token, x5cRootsPEM: chain.rootPEM) } throws: {
                ($0 as? CryptoError)?.code == .badSignature
            }
        }
    }

    @Test func jwsX5C_leafOfAnotherChain_isBadSignature() throws {
        // A genuine chain, but the token was signed by a different (untrusted) key.
        let chain = try TestCertificates.makeChain()
        let impostor = try TestCertificates.makeChain()
        let token = try Self.signTransaction(
            TestCertificates.Chain(rootPEM: chain.rootPEM, chainDER: chain.chainDER,
                                   leafPrivateKeyPEM: impostor.leafPrivateKeyPEM))
        #expect { try JWS.verify(token: token, x5cRootsPEM: chain.rootPEM) } throws: {
            ($0 as? CryptoError)?.code == .badSignature
        }
    }

    @Test func jwsX5C_missingOrBadX5C_isMalformed() throws {
        let chain = try TestCertificates.makeChain()
        let key = try ECSigningKey(pem: chain.leafPrivateKeyPEM)
        let tokens = [
            try JWS.sign(payload: Self.transaction.serialized(), key: key),
            try JWS.sign(header: ["x5c": "MIIB"], payload: [1], key: key),
            try JWS.sign(header: ["x5c": ["not base64!"]], payload: [1], key: key),
            try JWS.sign(header: ["x5c": []], payload: [1], key: key),
            try JWS.sign(header: ["x5c": ["AAAA"]], payload: [1], key: key),
            try Self.signTransaction(chain, x5c: Array(repeating: chain.chainDER[0], count: 6)),
        ]
        for token in tokens {
            #expect { try JWS.verify(token: token, x5cRootsPEM: chain.rootPEM) } throws: {
                ($0 as? CryptoError)?.code == .malformed
            }
        }
    }

    @Test func jwsX5C_missingIntermediate_orRootAsLeaf_isUntrustedChain() throws {
        let chain = try TestCertificates.makeChain()
        let leafOnly = try Self.signTransaction(chain, x5c: [chain.chainDER[0]])
        let rootOnly = try Self.signTransaction(chain, x5c: [chain.chainDER[2]])
        let intermediateFirst = try Self.signTransaction(chain, x5c: [chain.chainDER[1], chain.chainDER[2]])
        for token in [leafOnly, rootOnly, intermediateFirst] {
            #expect { try JWS.verify(token: token, x5cRootsPEM: chain.rootPEM) } throws: {
                ($0 as? CryptoError)?.code == .untrustedChain
            }
        }
    }

    @Test func jwsX5C_rs256Header_isUnsupported() throws {
        let chain = try TestCertificates.makeChain()
        let parts = try Self.signTransaction(chain).split(separator: ".").map(String.init)
        var header = try JSONValue.parseObject(Base64URL.decode(parts[0]))
        header["alg"] = "RS256"
        let token = [Base64URL.encode(JSONValue.object(header).serialized()), parts[1], parts[2]].joined(separator: ".")
        #expect { try JWS.verify(token: token, x5cRootsPEM: chain.rootPEM) } throws: {
            ($0 as? CryptoError)?.code == .unsupportedAlgorithm
        }
    }

    @Test func verify_garbageRootsPEM_isMalformed() throws {
        let chain = try TestCertificates.makeChain()
        #expect { try X509ChainVerifier.verify(chain: chain.chainDER, trustedRootsPEM: Array("nope".utf8), at: nil) } throws: {
            ($0 as? CryptoError)?.code == .malformed
        }
        #expect { try X509ChainVerifier.verify(chain: [chain.chainDER[0] + [0]], trustedRootsPEM: chain.rootPEM, at: nil) } throws: {
            ($0 as? CryptoError)?.code == .malformed
        }
    }
}
