import Testing
import Wire

@Suite struct ProtoWriterTests {
    private static func encoded(_ body: (inout ProtoWriter) -> Void) -> String {
        var writer = ProtoWriter()
        body(&writer)
        return writer.bytes.hex
    }

    @Test func int32_150_isSpecExample() {
        #expect(Self.encoded { $0.writeInt32(field: 1, 150) } == "08 96 01")
    }

    @Test func int32_negative_isTenByteVarint() {
        #expect(Self.encoded { $0.writeInt32(field: 1, -1) } == "08 ff ff ff ff ff ff ff ff ff 01")
        #expect(Self.encoded { $0.writeEnum(field: 1, -2) } == "08 fe ff ff ff ff ff ff ff ff 01")
    }

    @Test func string_testing_isSpecExample() {
        #expect(Self.encoded { $0.writeString(field: 2, "testing") } == "12 07 74 65 73 74 69 6e 67")
    }

    @Test func nestedMessage_isSpecExample() {
        // message Test3 { Test1 c = 3; } with c.a = 150.
        #expect(Self.encoded { $0.writeMessage(field: 3, Inner(id: 150)) } == "1a 03 08 96 01")
    }

    @Test func packedInt32_isSpecExample() {
        #expect(Self.encoded { $0.writePackedInt32(field: 4, [3, 270, 86942]) } == "22 06 03 8e 02 9e a7 05")
    }

    @Test func packed_emptyArray_writesNothing() {
        let hex = Self.encoded {
            $0.writePackedInt32(field: 1, [])
            $0.writePackedInt64(field: 1, [])
            $0.writePackedUInt32(field: 1, [])
            $0.writePackedUInt64(field: 1, [])
            $0.writePackedSInt32(field: 1, [])
            $0.writePackedSInt64(field: 1, [])
            $0.writePackedBool(field: 1, [])
            $0.writePackedEnum(field: 1, [Int32]())
            $0.writePackedEnum(field: 1, [Color]())
            $0.writePackedFixed32(field: 1, [])
            $0.writePackedFixed64(field: 1, [])
            $0.writePackedSFixed32(field: 1, [])
            $0.writePackedSFixed64(field: 1, [])
            $0.writePackedFloat(field: 1, [])
            $0.writePackedDouble(field: 1, [])
        }
        #expect(hex == "")
    }

    @Test(arguments: [
        ("sint32 -1", "28 01"),
        ("sint64 min", "30 ff ff ff ff ff ff ff ff ff 01"),
        ("bool", "38 01"),
        ("fixed32", "4d 01 00 00 00"),
        ("fixed64", "51 01 00 00 00 00 00 00 00"),
        ("sfixed32 -2", "5d fe ff ff ff"),
        ("sfixed64 -2", "61 fe ff ff ff ff ff ff ff"),
        ("float 1", "6d 00 00 80 3f"),
        ("double 1", "71 00 00 00 00 00 00 f0 3f"),
        ("bytes", "82 01 02 00 ff"),
        ("uint64 max", "20 ff ff ff ff ff ff ff ff ff 01"),
        ("max field", "f8 ff ff ff 0f 00"),
    ])
    func scalar_goldenBytes(name: String, hex: String) {
        let actual = Self.encoded { writer in
            switch name {
            case "sint32 -1": writer.writeSInt32(field: 5, -1)
            case "sint64 min": writer.writeSInt64(field: 6, .min)
            case "bool": writer.writeBool(field: 7, true)
            case "fixed32": writer.writeFixed32(field: 9, 1)
            case "fixed64": writer.writeFixed64(field: 10, 1)
            case "sfixed32 -2": writer.writeSFixed32(field: 11, -2)
            case "sfixed64 -2": writer.writeSFixed64(field: 12, -2)
            case "float 1": writer.writeFloat(field: 13, 1)
            case "double 1": writer.writeDouble(field: 14, 1)
            case "bytes": writer.writeBytes(field: 16, [0, 0xFF])
            case "uint64 max": writer.writeUInt64(field: 4, .max)
            case "max field": writer.writeUInt32(field: ProtoReader.maxFieldNumber, 0)
            default: Issue.record("unknown case \(name)")
            }
        }
        #expect(actual == hex)
    }

    @Test(arguments: [0, 1, 127, 128, 300, 16_383, 16_384, 70_000])
    func lengthDelimited_backPatchesLength(contentSize: Int) throws {
        let inner = Inner(name: String(repeating: "z", count: contentSize))
        var writer = ProtoWriter()
        writer.writeInt32(field: 1, 1)
        writer.writeMessage(field: 17, inner)
        writer.writeInt32(field: 1, 2)

        var expected = ProtoWriter()
        expected.writeInt32(field: 1, 1)
        let body = inner.serializedBytes()
        expected.writeTag(field: 17, wireType: .lengthDelimited)
        expected.writeVarint(UInt64(body.count))
        expected.writeRawBytes(body)
        expected.writeInt32(field: 1, 2)
        #expect(writer.bytes == expected.bytes)
    }

    @Test func map_writesEntriesInKeyOrder() {
        let hex = Self.encoded { $0.writeMap(field: 21, ["b": "2", "a": "1"]) }
        #expect(hex == "aa 01 06 0a 01 61 12 01 31 aa 01 06 0a 01 62 12 01 32")
    }
}
