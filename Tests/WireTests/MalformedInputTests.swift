import Testing
import Wire

/// Hostile and broken input: every case throws a `WireDecodingError`, nothing traps.
@Suite struct MalformedInputTests {
    private static func decodeError(_ bytes: [UInt8], limits: DecodingLimits = .default) -> WireDecodingError? {
        do {
            _ = try TestMessage(serializedBytes: bytes, limits: limits)
            return nil
        } catch let error as WireDecodingError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test(arguments: [
        ("varint value truncated", "08", WireDecodingError.Code.truncated, 1),
        ("varint value truncated mid-byte", "08 96", .truncated, 1),
        ("tag truncated", "80", .truncated, nil),
        ("eleven-byte varint value", "08 ff ff ff ff ff ff ff ff ff ff 01", .malformedVarint, 1),
        ("eleven-byte tag", "ff ff ff ff ff ff ff ff ff ff 01", .malformedVarint, nil),
        ("field 0", "00 01", .invalidFieldNumber, nil),
        ("field 0 length-delimited", "02 00", .invalidFieldNumber, nil),
        ("field 2^29", "80 80 80 80 10 00", .invalidFieldNumber, nil),
        ("tag above UInt32", "f8 ff ff ff ff 01 00", .invalidFieldNumber, nil),
        ("wire type 6", "0e 00", .invalidWireType, 1),
        ("wire type 7", "0f 00", .invalidWireType, 1),
        ("stray end group", "0c", .unmatchedEndGroup, 1),
        ("mismatched end group", "cb 3e 14", .unmatchedEndGroup, 2),
        ("unterminated group", "cb 3e 08 01", .truncated, 1001),
        ("group with bad inner tag", "cb 3e 0f", .invalidWireType, 1),
        ("length past end", "7a 05 61", .truncated, 15),
        ("length 2^31", "7a 80 80 80 80 08", .lengthOutOfRange, 15),
        ("length UInt64.max", "7a ff ff ff ff ff ff ff ff ff 01", .lengthOutOfRange, 15),
        ("unknown length past end", "ca 3e 7f 00", .truncated, 1001),
        ("fixed32 truncated", "4d 01 02", .truncated, 9),
        ("fixed64 truncated", "51 01 02 03 04 05 06 07", .truncated, 10),
        ("unknown fixed64 truncated", "c9 3e 01", .truncated, 1001),
        ("invalid UTF-8", "7a 02 c3 28", .invalidUTF8, 15),
        ("overlong UTF-8", "7a 02 c0 80", .invalidUTF8, 15),
        ("UTF-16 surrogate", "7a 03 ed a0 80", .invalidUTF8, 15),
        ("lone continuation byte", "7a 01 80", .invalidUTF8, 15),
        ("truncated UTF-8 sequence", "7a 01 e2", .invalidUTF8, 15),
        ("invalid UTF-8 map key", "aa 01 04 0a 02 ff fe", .invalidUTF8, 1),
        ("int32 as fixed32", "0d 00 00 00 00", .wrongWireType, 1),
        ("string as varint", "78 01", .wrongWireType, 15),
        ("message as varint", "88 01 01", .wrongWireType, 17),
        ("double as fixed32", "75 00 00 00 00", .wrongWireType, 14),
        ("repeated int32 as fixed64", "91 01 00 00 00 00 00 00 00 00", .wrongWireType, 18),
        ("packed doubles not a multiple of 8", "da 01 07 00 00 00 00 00 00 00", .truncated, 27),
        ("packed varint run truncated", "92 01 01 96", .truncated, 18),
        ("nested message past end", "8a 01 03 08 96", .truncated, 17),
        ("nested string past nested end", "8a 01 02 12 05 61 61 61 61 61", .truncated, 2),
    ] as [(String, String, WireDecodingError.Code, Int?)])
    func malformed_throws(name: String, hex: String, code: WireDecodingError.Code, field: Int?) {
        let error = Self.decodeError([UInt8](hex: hex))
        #expect(error == WireDecodingError(code, field: field), "\(name)")
    }

    @Test func description_namesProblemAndField_notBytes() {
        let error = Self.decodeError([UInt8](hex: "7a 04 73 65 63 ff"))
        #expect(error?.description == "protobuf decoding failed: invalid UTF-8 in string (field 15)")
        #expect(WireDecodingError(.truncated).description == "protobuf decoding failed: input truncated")
    }

    @Test(arguments: GoldenCases.all.map(\.name))
    func truncatedAtEveryOffset_throwsOrDecodesPrefix(name: String) throws {
        let bytes = try #require(GoldenCases.all.first { $0.name == name }).golden
        for length in 0..<bytes.count {
            do {
                _ = try TestMessage(serializedBytes: Array(bytes[..<length]))
            } catch let error as WireDecodingError {
                #expect([.truncated, .invalidUTF8].contains(error.code), "prefix \(length): \(error)")
            }
        }
    }

    @Test func everySingleByteMutation_neverTraps() throws {
        let bytes = GoldenCases.collections.serializedBytes() + GoldenCases.scalars.serializedBytes()
        var thrown = 0
        for offset in bytes.indices {
            for value in [0x00, 0x01, 0x7F, 0x80, 0xFF, bytes[offset] ^ 0x04] as [UInt8] {
                var mutated = bytes
                mutated[offset] = value
                do {
                    let message = try TestMessage(serializedBytes: mutated)
                    _ = message.serializedBytes()
                } catch is WireDecodingError {
                    thrown += 1
                }
            }
        }
        #expect(thrown > 0)
    }

    // MARK: - Limits

    /// A TestMessage nested `levels` deep through field 29.
    private static func nested(levels: Int) -> [UInt8] {
        var bytes = [UInt8](hex: "08 01")
        for _ in 0..<levels {
            var writer = ProtoWriter()
            writer.writeBytes(field: 29, bytes)
            bytes = writer.bytes
        }
        return bytes
    }

    @Test func depth_64Levels_decodes_65Throws() throws {
        var message = try TestMessage(serializedBytes: Self.nested(levels: 64))
        var levels = 0
        while let child = message.recursive {
            levels += 1
            message = child
        }
        #expect(levels == 64)
        #expect(message.int32Value == 1)
        #expect(Self.decodeError(Self.nested(levels: 65)) == WireDecodingError(.depthLimitExceeded, field: 29))
    }

    @Test(arguments: [0, 1, 5])
    func depth_customLimit(maxDepth: Int) {
        let limits = DecodingLimits(maxDepth: maxDepth)
        #expect(Self.decodeError(Self.nested(levels: maxDepth), limits: limits) == nil)
        #expect(Self.decodeError(Self.nested(levels: maxDepth + 1), limits: limits)?.code == .depthLimitExceeded)
    }

    @Test func depth_hugeNestingAttack_throwsQuickly() {
        // 100 000 well-formed levels of field 29 would overflow the stack without the limit.
        var headers: [[UInt8]] = []
        var contentLength = 0
        for _ in 0..<100_000 {
            var writer = ProtoWriter()
            writer.writeTag(field: 29, wireType: .lengthDelimited)
            writer.writeVarint(UInt64(contentLength))
            headers.append(writer.bytes)
            contentLength += writer.bytes.count
        }
        let bytes = headers.reversed().flatMap { $0 }
        #expect(Self.decodeError(bytes) == WireDecodingError(.depthLimitExceeded, field: 29))
    }

    @Test func depth_unknownGroups_areCountedToo() {
        func groups(_ levels: Int) -> [UInt8] {
            Array(repeating: [0xCB, 0x3E], count: levels).flatMap { $0 }
                + Array(repeating: [0xCC, 0x3E], count: levels).flatMap { $0 }
        }
        #expect(Self.decodeError(groups(64)) == nil)
        #expect(Self.decodeError(groups(65))?.code == .depthLimitExceeded)
        #expect(Self.decodeError(Array(repeating: [0xCB, 0x3E], count: 100_000).flatMap { $0 })?.code == .depthLimitExceeded)
    }

    @Test func size_aboveLimit_throwsBeforeDecoding() {
        let limits = DecodingLimits(maxMessageSize: 10)
        #expect(Self.decodeError([UInt8](repeating: 0, count: 11), limits: limits) == WireDecodingError(.messageTooLarge))
        #expect(Self.decodeError([UInt8](hex: "7a 08 61 61 61 61 61 61 61 61"), limits: limits) == nil)
        #expect(Self.decodeError([UInt8](repeating: 0x08, count: (4 << 20) + 1)) == WireDecodingError(.messageTooLarge))
    }

    @Test func size_readerInitializedDirectly_throwsOnFirstField() {
        var reader = ProtoReader(bytes: [UInt8](hex: "08 01 08 02"), limits: DecodingLimits(maxMessageSize: 3))
        #expect(throws: WireDecodingError(.messageTooLarge)) { try reader.nextField() }
    }

    @Test func readingTwice_throwsNoCurrentField() throws {
        var reader = ProtoReader(bytes: [UInt8](hex: "08 01 08 02"))
        _ = try reader.nextField()
        #expect(try reader.readInt32() == 1)
        #expect(throws: WireDecodingError(.noCurrentField)) { try reader.readInt32() }
        #expect(throws: WireDecodingError(.noCurrentField)) { try reader.skipField() }
    }
}
