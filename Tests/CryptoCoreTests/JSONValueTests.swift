import Testing
@testable import CryptoCore

@Suite struct JSONValueTests {
    @Test func parse_keepsIntegersExactAndTypesApart() throws {
        let value = try JSONValue.parseObject(Array(#"{"a":9007199254740993,"b":1.5,"c":true,"d":null,"e":[1,"x"],"f":{}}"#.utf8))
        #expect(value["a"] == .integer(9_007_199_254_740_993))
        #expect(value["b"] == .number(1.5))
        #expect(value["c"] == .bool(true) && value["c"]?.int64Value == nil)
        #expect(value["d"] == .null)
        #expect(value["e"] == [1, "x"])
        #expect(value["f"] == .object([:]))
    }

    @Test func serialized_isCompactAndSorted() {
        let value: JSONValue = ["b": 1, "a": ["x": "https://a/b", "n": nil]]
        #expect(String(decoding: value.serialized(), as: UTF8.self) == #"{"a":{"n":null,"x":"https://a/b"},"b":1}"#)
    }

    @Test(arguments: ["", "{", "[1,]", "{'a':1}", "nul", "{\"a\":1}x"])
    func parse_invalid_throwsMalformed(_ text: String) {
        #expect { try JSONValue.parse(Array(text.utf8)) } throws: { ($0 as? CryptoError)?.code == .malformed }
    }

    @Test func parse_duplicateKey_isRejected() {
        // RFC 7515 §5.2 lets a parser reject or take the last; we must never see two `alg`s.
        #expect { try JSONValue.parse(Array(#"{"alg":"ES256","alg":"none"}"#.utf8)) } throws: {
            ($0 as? CryptoError)?.code == .malformed
        }
    }
}

@Suite struct JSONParserTests {
    @Test(arguments: ["01", "-", "1.", ".5", "1e", "+1", "[1 2]", "{\"a\" 1}", "{1:2}", "\"\\x\"", "\"\\ud800\"",
                      "\"\u{1}\"", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "1e999", "tru"])
    func parse_strictlyInvalid_throws(_ text: String) {
        #expect { try JSONValue.parse(Array(text.utf8)) } throws: { ($0 as? CryptoError)?.code == .malformed }
    }

    @Test func parse_escapesAndUnicode() throws {
        let value = try JSONValue.parse(Array(#" "a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00é" "#.utf8))
        #expect(value == .string("a\"\\/\u{8}\u{c}\n\r\té😀é"))
        #expect(try JSONValue.parse(value.serialized()) == value)
    }

    @Test func parse_numbers() throws {
        #expect(try JSONValue.parse(Array("-0".utf8)) == .integer(0))
        #expect(try JSONValue.parse(Array("9223372036854775808".utf8)) == .number(9_223_372_036_854_775_808))
        #expect(try JSONValue.parse(Array("1E+2".utf8)) == .number(100))
        #expect(try JSONValue.parse(Array("-12.5e-1".utf8)) == .number(-1.25))
    }
}
