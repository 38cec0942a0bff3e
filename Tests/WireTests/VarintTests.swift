import Testing
@testable import Wire

@Suite struct VarintTests {
    @Test(arguments: [
        (UInt64(0), "00"),
        (1, "01"),
        (127, "7f"),
        (128, "80 01"),
        (150, "96 01"),
        (300, "ac 02"),
        (16_383, "ff 7f"),
        (16_384, "80 80 01"),
        (UInt64(UInt32.max), "ff ff ff ff 0f"),
        (UInt64.max, "ff ff ff ff ff ff ff ff ff 01"),
    ])
    func encode_matchesSpec(value: UInt64, hex: String) {
        var writer = ProtoWriter()
        writer.writeVarint(value)
        #expect(writer.bytes.hex == hex)
        #expect(Varint.encodedSize(of: value) == writer.bytes.count)
    }

    @Test(arguments: [
        (Int64(0), UInt64(0)),
        (-1, 1),
        (1, 2),
        (-2, 3),
        (2_147_483_647, 4_294_967_294),
        (-2_147_483_648, 4_294_967_295),
        (.max, .max - 1),
        (.min, .max),
    ])
    func zigZag64_matchesSpecTable(value: Int64, encoded: UInt64) {
        #expect(ZigZag.encoded(value) == encoded)
        #expect(ZigZag.decoded(encoded) == value)
    }

    @Test(arguments: [
        (Int32(0), UInt32(0)),
        (-1, 1),
        (1, 2),
        (-2, 3),
        (.max, .max - 1),
        (.min, .max),
    ])
    func zigZag32_matchesSpecTable(value: Int32, encoded: UInt32) {
        #expect(ZigZag.encoded(value) == encoded)
        #expect(ZigZag.decoded(encoded) == value)
    }

    @Test func encodedSize_negativeInt32_isTenBytes() {
        #expect(Varint.encodedSize(of: Int32(-1)) == 10)
        #expect(Varint.encodedSize(of: Int32.min) == 10)
    }
}
