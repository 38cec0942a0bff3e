@testable import RPC
import Testing

@Suite struct PercentEncodingTests {
    static let encodings: [(String, String)] = [
        ("", ""),
        ("plain ASCII text", "plain ASCII text"),
        ("~ and space stay", "~ and space stay"),
        ("100%", "100%25"),
        ("\t\r\n", "%09%0D%0A"),
        ("\u{7F}", "%7F"),
        ("☺", "%E2%98%BA"),
        ("😈", "%F0%9F%98%88"),
        ("é%", "%C3%A9%25"),
    ]

    @Test(arguments: encodings)
    func encode_producesSpecBytes(text: String, encoded: String) {
        #expect(PercentEncoding.encode(text) == encoded)
    }

    @Test(arguments: encodings)
    func decode_ofEncoded_restoresText(text: String, encoded: String) {
        #expect(PercentEncoding.decode(encoded) == text)
    }

    @Test func decode_lowercaseHex_isAccepted() {
        #expect(PercentEncoding.decode("%e2%98%ba") == "☺")
    }

    @Test(arguments: ["%", "%4", "%zz", "%4g", "abc%", "%%41", "100%!"])
    func decode_malformedSequence_isKeptAsIs(text: String) {
        let expected = text == "%%41" ? "%A" : text
        #expect(PercentEncoding.decode(text) == expected)
    }

    @Test func decode_invalidUTF8_becomesReplacementCharacter() {
        #expect(PercentEncoding.decode("a%FFb") == "a\u{FFFD}b")
    }
}
