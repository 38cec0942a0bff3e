import Testing
import Wire

/// Every scalar kind written with `ProtoWriter` and read back with `ProtoReader`.
@Suite struct ScalarRoundTripTests {
    private static func roundTrip<T>(
        write: (inout ProtoWriter) -> Void,
        read: (inout ProtoReader) throws -> T
    ) throws -> T {
        var writer = ProtoWriter()
        write(&writer)
        var reader = ProtoReader(bytes: writer.bytes)
        let next = try #require(try reader.nextField())
        #expect(next.field == 7)
        let value = try read(&reader)
        #expect(try reader.nextField() == nil)
        return value
    }

    @Test(arguments: [Int32.min, -1, 0, 1, 150, .max])
    func int32(value: Int32) throws {
        #expect(try Self.roundTrip { $0.writeInt32(field: 7, value) } read: { try $0.readInt32() } == value)
        #expect(try Self.roundTrip { $0.writeSInt32(field: 7, value) } read: { try $0.readSInt32() } == value)
        #expect(try Self.roundTrip { $0.writeSFixed32(field: 7, value) } read: { try $0.readSFixed32() } == value)
        #expect(try Self.roundTrip { $0.writeEnum(field: 7, value) } read: { try $0.readEnum() } == value)
    }

    @Test(arguments: [Int64.min, Int64(Int32.min) - 1, -1, 0, 1, Int64(UInt32.max) + 1, .max])
    func int64(value: Int64) throws {
        #expect(try Self.roundTrip { $0.writeInt64(field: 7, value) } read: { try $0.readInt64() } == value)
        #expect(try Self.roundTrip { $0.writeSInt64(field: 7, value) } read: { try $0.readSInt64() } == value)
        #expect(try Self.roundTrip { $0.writeSFixed64(field: 7, value) } read: { try $0.readSFixed64() } == value)
    }

    @Test(arguments: [UInt32.min, 1, 127, 128, .max])
    func uint32(value: UInt32) throws {
        #expect(try Self.roundTrip { $0.writeUInt32(field: 7, value) } read: { try $0.readUInt32() } == value)
        #expect(try Self.roundTrip { $0.writeFixed32(field: 7, value) } read: { try $0.readFixed32() } == value)
    }

    @Test(arguments: [UInt64.min, 1, UInt64(UInt32.max) + 1, 1 << 63, .max])
    func uint64(value: UInt64) throws {
        #expect(try Self.roundTrip { $0.writeUInt64(field: 7, value) } read: { try $0.readUInt64() } == value)
        #expect(try Self.roundTrip { $0.writeFixed64(field: 7, value) } read: { try $0.readFixed64() } == value)
    }

    @Test(arguments: [true, false])
    func bool(value: Bool) throws {
        #expect(try Self.roundTrip { $0.writeBool(field: 7, value) } read: { try $0.readBool() } == value)
    }

    @Test(arguments: [
        Float.nan, -.nan, Float(bitPattern: 0x7FA0_0001), 0, -0.0, .infinity, -.infinity,
        .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1.5,
    ])
    func float(value: Float) throws {
        let decoded = try Self.roundTrip { $0.writeFloat(field: 7, value) } read: { try $0.readFloat() }
        #expect(decoded.bitPattern == value.bitPattern)
    }

    @Test(arguments: [
        Double.nan, -.nan, Double(bitPattern: 0x7FF4_0000_0000_0001), 0, -0.0, .infinity, -.infinity,
        .leastNonzeroMagnitude, .greatestFiniteMagnitude, -2.25,
    ])
    func double(value: Double) throws {
        let decoded = try Self.roundTrip { $0.writeDouble(field: 7, value) } read: { try $0.readDouble() }
        #expect(decoded.bitPattern == value.bitPattern)
    }

    @Test(arguments: ["", "testing", "h\u{E9}llo \u{1F30D}", "nul\u{0}inside", String(repeating: "long ", count: 100)])
    func string(value: String) throws {
        #expect(try Self.roundTrip { $0.writeString(field: 7, value) } read: { try $0.readString() } == value)
    }

    @Test(arguments: [[UInt8](), [0], [0xFF, 0x00, 0x80], [UInt8](repeating: 0xAB, count: 1000)])
    func bytes(value: [UInt8]) throws {
        #expect(try Self.roundTrip { $0.writeBytes(field: 7, value) } read: { try $0.readBytes() } == value)
    }

    @Test func enum_unknownValue_isKept() throws {
        let decoded = try Self.roundTrip { $0.writeEnum(field: 7, Color(rawValue: 1234)) } read: {
            try $0.readEnum(as: Color.self)
        }
        #expect(decoded == Color(rawValue: 1234))
    }

    @Test func message_withEveryField_roundTrips() throws {
        for (name, message, _) in GoldenCases.all {
            let decoded = try TestMessage(serializedBytes: message.serializedBytes())
            #expect(decoded == message, "\(name)")
            #expect(message.serializedSize() == message.serializedBytes().count)
        }
    }
}
