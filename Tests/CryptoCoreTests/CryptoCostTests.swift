import Foundation
import Testing
@testable import CryptoCore

/// Rough costs for the notes; run with CRYPTO_BENCH=1 (they take a few seconds).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["CRYPTO_BENCH"] == "1"))
struct CryptoCostTests {
    static func measure(_ label: String, iterations: Int, _ body: () throws -> Void) rethrows {
        let clock = ContinuousClock()
        let elapsed = try clock.measure { for _ in 0..<iterations { try body() } }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let perSecond = Double(iterations) / seconds
        print("COST \(label): \(String(format: "%.0f", perSecond))/s, \(String(format: "%.3f", seconds * 1000 / Double(iterations))) ms each")
    }

    @Test func costs() throws {
        let key = try ECSigningKey.generate()
        let message = [UInt8](repeating: 0x42, count: 300)
        let signature = try key.signature(for: message)
        try Self.measure("ES256 sign", iterations: 5000) { _ = try key.signature(for: message) }
        Self.measure("ES256 verify", iterations: 5000) { _ = key.verifyingKey.isValidSignature(signature, for: message) }

        let keys = try JWKSet(signingKeys: [key])
        let token = try JWT.sign(claims: ["sub": "acct", "exp": 2_000_000_000, "aud": "elite"], key: key)
        try Self.measure("JWT sign (ES256, header+claims)", iterations: 5000) {
            _ = try JWT.sign(claims: ["sub": "acct", "exp": 2_000_000_000, "aud": "elite"], key: key)
        }
        try Self.measure("JWS.verify + claims (ES256)", iterations: 5000) { _ = try JWS.verify(token: token, keys: keys).claims() }

        let rsa = try RSAVerifyingKeyTests.a2Key()
        let parsed = try JWS.parse(JOSEVectors.rs256Token, allowedAlgorithms: [.rs256])
        Self.measure("RS256 verify (2048)", iterations: 5000) { _ = rsa.isValidSignature(parsed.signature, for: parsed.signingInput) }

        let chain = try TestCertificates.makeChain()
        let transaction = try X509ChainVerifierTests.signTransaction(chain)
        try Self.measure("x5c JWS verify (3-cert chain)", iterations: 500) {
            _ = try JWS.verify(token: transaction, x5cRootsPEM: chain.rootPEM)
        }

        let encoded = try PasswordHash.make(password: "correct horse battery staple")
        try Self.measure("scrypt N=2^15 r=8 p=1 (PasswordHash.verify)", iterations: 20) {
            _ = try PasswordHash.verify(password: "correct horse battery staple", encoded: encoded)
        }
    }
}
