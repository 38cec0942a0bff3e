import CryptoCore
import Foundation
import GatewayClient
import Testing

/// The nonce an app makes for each Apple or Google sign-in. That Identity accepts Apple tokens
/// carrying `sha256` is shown end to end (EndToEndProviderSignInTests).
@Suite struct ProviderNonceTests {
    @Test func eachNonce_is32FreshRandomBytes() throws {
        let nonces = (0..<100).map { _ in ProviderNonce().raw }
        #expect(Set(nonces).count == 100)
        #expect(try nonces.allSatisfy { try Base64URL.decode($0).count == 32 })
    }

    @Test func appleHash_isLowercaseHexSHA256_ofTheRawNonce() {
        let nonce = ProviderNonce()
        #expect(nonce.sha256.count == 64)
        #expect(nonce.sha256.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        let digest = SHA256Digest.hash(Array(nonce.raw.utf8))
        #expect(nonce.sha256 == digest.map { String(format: "%02x", $0) }.joined())
    }
}
