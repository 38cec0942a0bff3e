import Testing
@testable import CryptoCore

@Suite struct HMACSHA256Tests {
    /// RFC 4231 test cases 1, 2 and 6 (a key longer than the block), plus empty key and message
    /// (checked with Python's hmac).
    static let vectors: [([UInt8], String, String)] = [
        ([UInt8](repeating: 0x0B, count: 20), "Hi There",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), "what do ya want for nothing?",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xAA, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ([], "", "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"),
    ]

    @Test(arguments: vectors)
    func authenticate_rfc4231(_ key: [UInt8], _ message: String, _ expected: String) {
        #expect(HMACSHA256.authenticate(key: key, message: Array(message.utf8)).hex == expected)
    }
}
