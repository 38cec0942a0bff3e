@testable import RPC
import Testing

@Suite struct Base64Tests {
    /// RFC 4648 §10.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: vectors)
    func encode_rfc4648Vector_isPadded(text: String, encoded: String) {
        #expect(Base64.encode(Array(text.utf8)) == encoded)
    }

    @Test(arguments: vectors)
    func decode_paddedAndUnpadded_giveTheSameBytes(text: String, encoded: String) {
        let unpadded = String(encoded.prefix { $0 != "=" })
        #expect(Base64.decode(encoded) == Array(text.utf8))
        #expect(Base64.decode(unpadded) == Array(text.utf8))
    }

    @Test func roundTrip_everyLengthAndByte() {
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ length) }
            let encoded = Base64.encode(bytes)
            #expect(encoded.count % 4 == 0)
            #expect(Base64.decode(encoded) == bytes)
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64.decode(Base64.encode(all)) == all)
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
    }

    @Test(arguments: ["Z", "Zm9vY", "Zm9v!", "Zm-_", "Zm9v\n", "Zm 9v", "é"])
    func decode_invalid_returnsNil(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
