import Testing
@testable import RPC

@Suite struct GzipTests {
    /// `gzip.compress(b"Rendezvous gRPC gzip golden: hello, hello, hello, hello!\n" * 3, mtime=0)`
    /// from CPython 3 (zlib 1.2.13).
    static let pythonGolden: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x0b, 0x4a, 0xcd, 0x4b, 0x49, 0xad,
        0x2a, 0xcb, 0x2f, 0x2d, 0x56, 0x48, 0x0f, 0x0a, 0x70, 0x56, 0x48, 0xaf, 0xca, 0x2c, 0x50, 0x48,
        0xcf, 0xcf, 0x49, 0x49, 0xcd, 0xb3, 0x52, 0xc8, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0xc1, 0x46, 0x29,
        0x72, 0x05, 0xd1, 0x5d, 0x23, 0x00, 0x63, 0x9b, 0x14, 0x31, 0xab, 0x00, 0x00, 0x00,
    ]
    static let goldenText = Array(
        String(repeating: "Rendezvous gRPC gzip golden: hello, hello, hello, hello!\n", count: 3).utf8)

    /// A named input; tests show only the name, not megabytes of bytes.
    struct Input: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]
        init(_ name: String, _ bytes: [UInt8]) {
            self.name = name
            self.bytes = bytes
        }
        var testDescription: String { name }
    }

    static let roundTripCases: [Input] = [
        Input("empty", []),
        Input("one byte", [0x2a]),
        Input("1 MiB zeros", [UInt8](repeating: 0, count: 1 << 20)),
        Input("1 MiB random", pseudoRandomBytes(count: 1 << 20)),
        Input("golden text", goldenText),
    ]

    @Test(arguments: roundTripCases)
    func roundTrip(_ case: Input) throws {
        let input = `case`.bytes
        let compressed = try Gzip.compress(input)
        #expect(compressed.starts(with: [0x1f, 0x8b]), "gzip magic")
        let restored = try Gzip.decompress(compressed, limit: input.count)
        #expect(restored == input)
    }

    @Test func decompress_pythonGzipOutput_matches() throws {
        #expect(try Gzip.decompress(Self.pythonGolden, limit: 1024) == Self.goldenText)
    }

    @Test func decompress_concatenatedMembers_returnsBoth() throws {
        let twice = Self.pythonGolden + Self.pythonGolden
        #expect(try Gzip.decompress(twice, limit: 1024) == Self.goldenText + Self.goldenText)
    }

    @Test func decompress_limitEqualToSize_succeeds() throws {
        let compressed = try Gzip.compress(Self.goldenText)
        #expect(try Gzip.decompress(compressed, limit: Self.goldenText.count) == Self.goldenText)
        #expect(throws: GzipError.outputTooLarge) {
            try Gzip.decompress(compressed, limit: Self.goldenText.count - 1)
        }
    }

    @Test func decompress_tenMiBZerosBomb_throwsOutputTooLarge() throws {
        let bomb = try Gzip.compress([UInt8](repeating: 0, count: 10 << 20))
        #expect(bomb.count < 64 * 1024)
        #expect(throws: GzipError.outputTooLarge) {
            try Gzip.decompress(bomb, limit: 1 << 20)
        }
    }

    static let corruptCases: [Input] = [
        Input("empty input", []),
        Input("not gzip", Array("hello, world".utf8)),
        Input("truncated", Array(pythonGolden.prefix(30))),
        Input("header only", Array(pythonGolden.prefix(10))),
        Input("bad CRC", flipping(byteAt: pythonGolden.count - 6, of: pythonGolden)),
        Input("bad length", flipping(byteAt: pythonGolden.count - 2, of: pythonGolden)),
        Input("bad deflate data", flipping(byteAt: 12, of: pythonGolden)),
        Input("trailing garbage", pythonGolden + [0x00, 0x01, 0x02]),
    ]

    @Test(arguments: corruptCases)
    func decompress_corruptInput_throwsCorrupt(_ case: Input) {
        #expect {
            try Gzip.decompress(`case`.bytes, limit: 1 << 20)
        } throws: { error in
            (error as? GzipError)?.code == .corrupt
        }
    }

    @Test func error_description_namesKindWithoutData() {
        #expect(GzipError.outputTooLarge.description == "GzipError(outputTooLarge): decompressed message exceeds the size limit")
    }

    private static func flipping(byteAt index: Int, of bytes: [UInt8]) -> [UInt8] {
        var copy = bytes
        copy[index] ^= 0xFF
        return copy
    }

    /// Deterministic incompressible bytes (xorshift64), so failures reproduce.
    private static func pseudoRandomBytes(count: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }
}
