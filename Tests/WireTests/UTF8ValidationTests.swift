import Testing
@testable import Wire

/// `UTF8Validation` agrees with the standard library's validator.
@Suite struct UTF8ValidationTests {
    private static func check(_ bytes: [UInt8]) -> Bool {
        let ours = bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) }
        let stdlib = String(validating: bytes, as: UTF8.self) != nil
        return ours == stdlib
    }

    @Test func allOneAndTwoByteSequences() {
        for first in 0...255 {
            #expect(Self.check([UInt8(first)]))
            for second in 0...255 where !Self.check([UInt8(first), UInt8(second)]) {
                Issue.record("mismatch for \([UInt8(first), UInt8(second)].hex)")
            }
        }
    }

    /// Continuation-range edges: enough to hit every boundary of table 3-7 after the second byte.
    private static let edges: [UInt8] = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]

    @Test func threeByteSequences() {
        for first in 0xE0...0xEF {
            for second in 0...255 {
                for third in Self.edges where !Self.check([UInt8(first), UInt8(second), third]) {
                    Issue.record("mismatch for \([UInt8(first), UInt8(second), third].hex)")
                }
            }
        }
    }

    @Test func fourByteSequences() {
        let edges: [UInt8] = [0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xFF]
        for first in 0xF0...0xFF {
            for second in 0...255 {
                for third in edges {
                    for fourth in edges where !Self.check([UInt8(first), UInt8(second), third, fourth]) {
                        Issue.record("mismatch for \([UInt8(first), UInt8(second), third, fourth].hex)")
                    }
                }
            }
        }
    }

    @Test(arguments: [
        "", "plain ASCII that is longer than eight bytes", "h\u{E9}llo", "\u{20AC}\u{1F30D}\u{10FFFF}",
        "mixed ascii then \u{4E2D}\u{6587} then ascii again, long enough for the fast path",
    ])
    func validStrings(string: String) {
        #expect(Array(string.utf8).withUnsafeBufferPointer { UTF8Validation.isValid($0) })
    }

    @Test func invalidByteAfterLongASCIIRun() {
        #expect(!(Array("0123456789abcdef".utf8) + [0xFF]).withUnsafeBufferPointer { UTF8Validation.isValid($0) })
        #expect(!(Array("0123456789abcde".utf8) + [0xE2, 0x82]).withUnsafeBufferPointer { UTF8Validation.isValid($0) })
    }
}
