import Testing
@testable import CryptoCore

@Suite struct SHA256DigestTests {
    /// FIPS 180-4 / NIST CSRC example vectors.
    static let vectors: [(String, String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ]

    @Test(arguments: vectors)
    func hash_knownVector_matches(_ input: String, _ expectedHex: String) {
        let hex = SHA256Digest.hash(Array(input.utf8)).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        #expect(hex == expectedHex)
    }
}

@Suite struct SecureRandomTests {
    @Test(arguments: [0, 1, 32, 4096])
    func bytes_returnsRequestedCount(_ count: Int) {
        #expect(SecureRandom.bytes(count).count == count)
    }

    @Test func bytes_twoCalls_differ() {
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - self.count)) + self
    }
}
