import Testing
import Wire

@Suite struct ProtoReaderTests {
    // MARK: - Repeated scalars, packed and unpacked

    /// Decodes every field-1 occurrence in `bytes` with `read`, appending.
    private static func decodeRepeated<T>(
        _ bytes: [UInt8],
        _ read: (inout ProtoReader, inout [T]) throws -> Void
    ) throws -> [T] {
        var reader = ProtoReader(bytes: bytes)
        var values: [T] = []
        while let next = try reader.nextField() {
            #expect(next.field == 1)
            try read(&reader, &values)
        }
        return values
    }

    /// Checks packed, unpacked, and packed+unpacked+packed encodings all decode to `values`.
    private static func checkRepeated<T: Equatable>(
        _ values: [T],
        packed: (inout ProtoWriter, [T]) -> Void,
        single: (inout ProtoWriter, T) -> Void,
        read: (inout ProtoReader, inout [T]) throws -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var packedWriter = ProtoWriter()
        packed(&packedWriter, values)
        var unpackedWriter = ProtoWriter()
        for value in values { single(&unpackedWriter, value) }
        var mixedWriter = ProtoWriter()
        packed(&mixedWriter, Array(values.prefix(1)))
        for value in values.dropFirst().prefix(1) { single(&mixedWriter, value) }
        packed(&mixedWriter, Array(values.dropFirst(2)))

        #expect(try decodeRepeated(packedWriter.bytes, read) == values, sourceLocation: sourceLocation)
        #expect(try decodeRepeated(unpackedWriter.bytes, read) == values, sourceLocation: sourceLocation)
        #expect(try decodeRepeated(mixedWriter.bytes, read) == values, sourceLocation: sourceLocation)
    }

    @Test func repeated_everyScalarKind_packedAndUnpacked() throws {
        try Self.checkRepeated([Int32.min, -1, 0, 1, .max]) { $0.writePackedInt32(field: 1, $1) }
            single: { $0.writeInt32(field: 1, $1) } read: { try $0.readRepeatedInt32(into: &$1) }
        try Self.checkRepeated([Int64.min, -1, 0, .max]) { $0.writePackedInt64(field: 1, $1) }
            single: { $0.writeInt64(field: 1, $1) } read: { try $0.readRepeatedInt64(into: &$1) }
        try Self.checkRepeated([UInt32.min, 300, .max]) { $0.writePackedUInt32(field: 1, $1) }
            single: { $0.writeUInt32(field: 1, $1) } read: { try $0.readRepeatedUInt32(into: &$1) }
        try Self.checkRepeated([UInt64.min, 300, .max]) { $0.writePackedUInt64(field: 1, $1) }
            single: { $0.writeUInt64(field: 1, $1) } read: { try $0.readRepeatedUInt64(into: &$1) }
        try Self.checkRepeated([Int32.min, -1, 0, .max]) { $0.writePackedSInt32(field: 1, $1) }
            single: { $0.writeSInt32(field: 1, $1) } read: { try $0.readRepeatedSInt32(into: &$1) }
        try Self.checkRepeated([Int64.min, -1, 0, .max]) { $0.writePackedSInt64(field: 1, $1) }
            single: { $0.writeSInt64(field: 1, $1) } read: { try $0.readRepeatedSInt64(into: &$1) }
        try Self.checkRepeated([true, false, true]) { $0.writePackedBool(field: 1, $1) }
            single: { $0.writeBool(field: 1, $1) } read: { try $0.readRepeatedBool(into: &$1) }
        try Self.checkRepeated([Int32(0), 2, -7, 1000]) { $0.writePackedEnum(field: 1, $1) }
            single: { $0.writeEnum(field: 1, $1) } read: { try $0.readRepeatedEnum(into: &$1) }
        try Self.checkRepeated([Color.red, .green, Color(rawValue: -3)]) { $0.writePackedEnum(field: 1, $1) }
            single: { $0.writeEnum(field: 1, $1) } read: { try $0.readRepeatedEnum(into: &$1) }
        try Self.checkRepeated([UInt32.min, 7, .max]) { $0.writePackedFixed32(field: 1, $1) }
            single: { $0.writeFixed32(field: 1, $1) } read: { try $0.readRepeatedFixed32(into: &$1) }
        try Self.checkRepeated([UInt64.min, 7, .max]) { $0.writePackedFixed64(field: 1, $1) }
            single: { $0.writeFixed64(field: 1, $1) } read: { try $0.readRepeatedFixed64(into: &$1) }
        try Self.checkRepeated([Int32.min, -7, .max]) { $0.writePackedSFixed32(field: 1, $1) }
            single: { $0.writeSFixed32(field: 1, $1) } read: { try $0.readRepeatedSFixed32(into: &$1) }
        try Self.checkRepeated([Int64.min, -7, .max]) { $0.writePackedSFixed64(field: 1, $1) }
            single: { $0.writeSFixed64(field: 1, $1) } read: { try $0.readRepeatedSFixed64(into: &$1) }
        try Self.checkRepeated([Float(1.5), -0.0, .infinity]) { $0.writePackedFloat(field: 1, $1) }
            single: { $0.writeFloat(field: 1, $1) } read: { try $0.readRepeatedFloat(into: &$1) }
        try Self.checkRepeated([2.5, -0.0, -Double.infinity]) { $0.writePackedDouble(field: 1, $1) }
            single: { $0.writeDouble(field: 1, $1) } read: { try $0.readRepeatedDouble(into: &$1) }
    }

    @Test func repeated_emptyPackedRun_decodesNothing() throws {
        #expect(try Self.decodeRepeated([UInt8](hex: "0a 00")) { try $0.readRepeatedInt32(into: &$1) } == [])
        #expect(try Self.decodeRepeated([UInt8](hex: "0a 00")) { try $0.readRepeatedDouble(into: &$1) } == [])
    }

    @Test func repeated_manySmallPackedRuns_stayLinear() throws {
        // Reserving exactly `count + run` per run would copy the whole array every few runs.
        let run = (0..<64).map(Double.init)
        var writer = ProtoWriter()
        for _ in 0..<20_000 {
            writer.writePackedDouble(field: 1, run)
            writer.writePackedFixed32(field: 2, [7])
        }
        var reader = ProtoReader(bytes: writer.bytes, limits: DecodingLimits(maxMessageSize: 1 << 30))
        var doubles: [Double] = []
        var fixed: [UInt32] = []
        while let next = try reader.nextField() {
            if next.field == 1 {
                try reader.readRepeatedDouble(into: &doubles)
            } else {
                try reader.readRepeatedFixed32(into: &fixed)
            }
        }
        #expect(doubles.count == 20_000 * 64 && doubles.last == 63)
        #expect(fixed.count == 20_000)
    }

    // MARK: - proto3 field rules

    @Test func singularScalar_lastOneWins() throws {
        let message = try TestMessage(serializedBytes: [UInt8](hex: "08 01 7a 01 61 08 02 7a 01 62"))
        #expect(message.int32Value == 2)
        #expect(message.stringValue == "b")
    }

    @Test func nestedMessage_repeatedOccurrence_merges() throws {
        var writer = ProtoWriter()
        writer.writeMessage(field: 17, Inner(id: 1, values: [1]))
        writer.writeMessage(field: 17, Inner(name: "b", values: [2]))
        let message = try TestMessage(serializedBytes: writer.bytes)
        #expect(message.inner == Inner(id: 1, name: "b", values: [1, 2]))
    }

    @Test func concatenatedMessages_merge() throws {
        var first = TestMessage()
        first.int32Value = 1
        first.repeatedString = ["a"]
        first.inner = Inner(id: 5)
        first.labels = ["k": "1", "x": "x"]
        var second = TestMessage()
        second.stringValue = "s"
        second.repeatedString = ["b"]
        second.inner = Inner(name: "n")
        second.labels = ["k": "2"]

        let merged = try TestMessage(serializedBytes: first.serializedBytes() + second.serializedBytes())
        #expect(merged.int32Value == 1)
        #expect(merged.stringValue == "s")
        #expect(merged.repeatedString == ["a", "b"])
        #expect(merged.inner == Inner(id: 5, name: "n"))
        #expect(merged.labels == ["k": "2", "x": "x"])

        var viaMerge = first
        try viaMerge.merge(serializedBytes: second.serializedBytes())
        #expect(viaMerge == merged)
    }

    @Test func fieldsInAnyOrder_decodeTheSame() throws {
        var writer = ProtoWriter()
        writer.writeMap(field: 21, ["a": "1"])
        writer.writeDouble(field: 14, 2.5)
        writer.writeMessage(field: 17, Inner(id: 7))
        writer.writePackedInt32(field: 18, [1, 2])
        writer.writeString(field: 15, "s")
        writer.writeSInt64(field: 6, -9)
        writer.writeInt32(field: 1, 3)

        var expected = TestMessage()
        expected.int32Value = 3
        expected.sint64Value = -9
        expected.doubleValue = 2.5
        expected.stringValue = "s"
        expected.inner = Inner(id: 7)
        expected.repeatedInt32 = [1, 2]
        expected.labels = ["a": "1"]
        #expect(try TestMessage(serializedBytes: writer.bytes) == expected)
    }

    @Test func oneof_lastMemberWins_sameMessageMemberMerges() throws {
        var writer = ProtoWriter()
        writer.writeString(field: 23, "name")
        writer.writeInt64(field: 25, 9)
        #expect(try TestMessage(serializedBytes: writer.bytes).choice == .number(9))

        writer.writeMessage(field: 24, Inner(id: 1))
        writer.writeMessage(field: 24, Inner(name: "x"))
        #expect(try TestMessage(serializedBytes: writer.bytes).choice == .inner(Inner(id: 1, name: "x")))
    }

    @Test func mapEntry_missingKeyOrValue_usesDefaults_andLastKeyWins() throws {
        var writer = ProtoWriter()
        writer.writeMapEntry(field: 21) { $0.writeString(field: 1, "k") } writeValue: { _ in }
        writer.writeMapEntry(field: 21) { _ in } writeValue: { $0.writeString(field: 2, "v") }
        // Value before key, an unknown field inside, then a repeated key.
        writer.writeMapEntry(field: 22) { $0.writeInt32(field: 2, 5) } writeValue: {
            $0.writeFixed64(field: 9, 1)
            $0.writeString(field: 1, "n")
        }
        writer.writeMapEntry(field: 22, key: "n", value: Int32(6))
        let message = try TestMessage(serializedBytes: writer.bytes)
        #expect(message.labels == ["k": "", "": "v"])
        #expect(message.counts == ["n": 6])
    }

    @Test func mapEntry_genericAndMessageValues_roundTrip() throws {
        var writer = ProtoWriter()
        writer.writeMap(field: 1, ["a": Inner(id: 1), "b": Inner(name: "b")])
        writer.writeMap(field: 2, ["big": Int64.min])
        writer.writeMapEntry(field: 3) { $0.writeUInt64(field: 1, 7) } writeValue: { $0.writeBool(field: 2, true) }

        var reader = ProtoReader(bytes: writer.bytes)
        var inners: [String: Inner] = [:]
        var bigs: [String: Int64] = [:]
        var flags: [UInt64: Bool] = [:]
        while let next = try reader.nextField() {
            switch next.field {
            case 1: try reader.readMapEntry(into: &inners)
            case 2: try reader.readMapEntry(into: &bigs)
            default:
                try reader.readMapEntry(into: &flags, defaultKey: 0, defaultValue: false) {
                    try $0.readUInt64()
                } readValue: {
                    try $0.readBool()
                }
            }
        }
        #expect(inners == ["a": Inner(id: 1), "b": Inner(name: "b")])
        #expect(bigs == ["big": .min])
        #expect(flags == [7: true])
    }

    // MARK: - Unknown fields

    @Test(arguments: [
        ("varint", "c8 3e 96 01"),
        ("varint ten bytes", "c8 3e ff ff ff ff ff ff ff ff ff 01"),
        ("fixed64", "c9 3e 01 02 03 04 05 06 07 08"),
        ("length-delimited", "ca 3e 03 61 62 63"),
        ("empty length-delimited", "ca 3e 00"),
        ("fixed32", "cd 3e 01 02 03 04"),
        ("group", "cb 3e 08 01 12 01 61 cc 3e"),
        ("nested groups", "cb 3e 0b 08 01 0c 13 14 cc 3e"),
        ("empty group", "cb 3e cc 3e"),
    ])
    func unknownField_everyWireType_isSkipped(name: String, hex: String) throws {
        // Known fields around the unknown field 1001 survive.
        let bytes = [UInt8](hex: "08 05") + [UInt8](hex: hex) + [UInt8](hex: "7a 01 7a")
        let message = try TestMessage(serializedBytes: bytes)
        #expect(message.int32Value == 5)
        #expect(message.stringValue == "z")
    }

    @Test func unreadValue_isSkippedByNextField() throws {
        var reader = ProtoReader(bytes: [UInt8](hex: "0a 02 08 01 10 07"))
        #expect(try reader.nextField()?.field == 1)
        #expect(try reader.nextField()?.field == 2)
        #expect(try reader.readInt32() == 7)
        #expect(try reader.nextField() == nil)
        #expect(reader.isAtEnd)
    }

    @Test func readEmbedded_skipsWhatTheBodyLeaves() throws {
        var writer = ProtoWriter()
        writer.writeMessage(field: 1, Inner(id: 3, name: "rest", values: [1, 2]))
        writer.writeInt32(field: 2, 9)
        var reader = ProtoReader(bytes: writer.bytes)
        _ = try reader.nextField()
        let id = try reader.readEmbedded { inner -> Int64 in
            _ = try inner.nextField()
            return try inner.readInt64()
        }
        #expect(id == 3)
        #expect(try reader.nextField()?.field == 2)
        #expect(try reader.readInt32() == 9)
    }

    // MARK: - Lenient varints, as protobuf reads them

    @Test(arguments: [
        ("int32 from 64-bit varint", "08 85 80 80 80 10", Int64(5)),
        ("negative int32 five bytes", "08 ff ff ff ff 0f", -1),
        ("non-canonical zero", "08 80 80 00", 0),
        ("tenth byte high bits dropped", "08 ff ff ff ff ff ff ff ff ff 7f", -1),
    ])
    func int32_readsLikeProtobuf(name: String, hex: String, expected: Int64) throws {
        var reader = ProtoReader(bytes: [UInt8](hex: hex))
        _ = try reader.nextField()
        #expect(Int64(try reader.readInt32()) == expected)
    }

    @Test func uint32AndBool_truncateAndTestNonZero() throws {
        let message = try TestMessage(serializedBytes: [UInt8](hex: "18 87 80 80 80 f0 01 38 80 80 80 80 10"))
        #expect(message.uint32Value == 7)
        #expect(message.boolValue)
    }
}
