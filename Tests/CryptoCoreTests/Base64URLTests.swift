import Testing
@testable import CryptoCore

@Suite struct Base64URLTests {
    /// RFC 4648 §10 vectors, unpadded.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: vectors)
    func encodeDecode_rfc4648Vectors(_ plain: String, _ encoded: String) throws {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(try Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func encode_usesURLAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    @Test func roundTrip_allLengthsAndBytes() throws {
        for length in 0...66 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            #expect(try Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    @Test(arguments: ["Zg==", "Zm9v=", "Zm+v", "Zm/v", "Zm9 v", "Z", "Zm9vY", "Zh", "Zm9", "é"])
    func decode_invalid_throwsMalformed(_ text: String) {
        #expect { try Base64URL.decode(text) } throws: { ($0 as? CryptoError)?.code == .malformed }
    }
}

@Suite struct ConstantTimeTests {
    @Test func equals_comparesBytesAndLengths() {
        #expect(ConstantTime.equals([], []))
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([0], []))
    }
}
