import Wire

/// `message TestMessage` in wire_test.proto: every scalar kind, a nested and a recursive
/// message, repeated fields, maps, a oneof and enums.
struct TestMessage: ProtoMessage {
    /// `oneof choice`: fields 23, 24, 25.
    enum Choice: Equatable, Sendable {
        case name(String)
        case inner(Inner)
        case number(Int64)
    }

    var int32Value: Int32 = 0            // 1
    var int64Value: Int64 = 0            // 2
    var uint32Value: UInt32 = 0          // 3
    var uint64Value: UInt64 = 0          // 4
    var sint32Value: Int32 = 0           // 5
    var sint64Value: Int64 = 0           // 6
    var boolValue = false                // 7
    var color = Color.unspecified        // 8
    var fixed32Value: UInt32 = 0         // 9
    var fixed64Value: UInt64 = 0         // 10
    var sfixed32Value: Int32 = 0         // 11
    var sfixed64Value: Int64 = 0         // 12
    var floatValue: Float = 0            // 13
    var doubleValue: Double = 0          // 14
    var stringValue = ""                 // 15
    var bytesValue: [UInt8] = []         // 16
    var inner: Inner?                    // 17
    var repeatedInt32: [Int32] = []      // 18, packed
    var repeatedString: [String] = []    // 19
    var repeatedInner: [Inner] = []      // 20
    var labels: [String: String] = [:]   // 21
    var counts: [String: Int32] = [:]    // 22
    var choice: Choice?                  // 23, 24, 25
    var colors: [Color] = []             // 26, packed
    var repeatedDouble: [Double] = []    // 27, packed
    var repeatedSInt64: [Int64] = []     // 28, packed
    /// Field 29, the message itself (stored in an array to give the struct a finite size).
    var recursive: TestMessage? {
        get { recursiveStorage.first }
        set { recursiveStorage = newValue.map { [$0] } ?? [] }
    }
    private var recursiveStorage: [TestMessage] = []

    init() {}

    func encode(to writer: inout ProtoWriter) {
        if int32Value != 0 { writer.writeInt32(field: 1, int32Value) }
        if int64Value != 0 { writer.writeInt64(field: 2, int64Value) }
        if uint32Value != 0 { writer.writeUInt32(field: 3, uint32Value) }
        if uint64Value != 0 { writer.writeUInt64(field: 4, uint64Value) }
        if sint32Value != 0 { writer.writeSInt32(field: 5, sint32Value) }
        if sint64Value != 0 { writer.writeSInt64(field: 6, sint64Value) }
        if boolValue { writer.writeBool(field: 7, boolValue) }
        if color != .unspecified { writer.writeEnum(field: 8, color) }
        if fixed32Value != 0 { writer.writeFixed32(field: 9, fixed32Value) }
        if fixed64Value != 0 { writer.writeFixed64(field: 10, fixed64Value) }
        if sfixed32Value != 0 { writer.writeSFixed32(field: 11, sfixed32Value) }
        if sfixed64Value != 0 { writer.writeSFixed64(field: 12, sfixed64Value) }
        // proto3 skips only +0.0: -0.0 and NaN have non-zero bits.
        if floatValue.bitPattern != 0 { writer.writeFloat(field: 13, floatValue) }
        if doubleValue.bitPattern != 0 { writer.writeDouble(field: 14, doubleValue) }
        if !stringValue.isEmpty { writer.writeString(field: 15, stringValue) }
        if !bytesValue.isEmpty { writer.writeBytes(field: 16, bytesValue) }
        if let inner { writer.writeMessage(field: 17, inner) }
        writer.writePackedInt32(field: 18, repeatedInt32)
        for value in repeatedString { writer.writeString(field: 19, value) }
        for value in repeatedInner { writer.writeMessage(field: 20, value) }
        writer.writeMap(field: 21, labels)
        writer.writeMap(field: 22, counts)
        switch choice {
        case let .name(value)?: writer.writeString(field: 23, value)
        case let .inner(value)?: writer.writeMessage(field: 24, value)
        case let .number(value)?: writer.writeInt64(field: 25, value)
        case nil: break
        }
        writer.writePackedEnum(field: 26, colors)
        writer.writePackedDouble(field: 27, repeatedDouble)
        writer.writePackedSInt64(field: 28, repeatedSInt64)
        if let recursive { writer.writeMessage(field: 29, recursive) }
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: int32Value = try reader.readInt32()
        case 2: int64Value = try reader.readInt64()
        case 3: uint32Value = try reader.readUInt32()
        case 4: uint64Value = try reader.readUInt64()
        case 5: sint32Value = try reader.readSInt32()
        case 6: sint64Value = try reader.readSInt64()
        case 7: boolValue = try reader.readBool()
        case 8: color = try reader.readEnum(as: Color.self)
        case 9: fixed32Value = try reader.readFixed32()
        case 10: fixed64Value = try reader.readFixed64()
        case 11: sfixed32Value = try reader.readSFixed32()
        case 12: sfixed64Value = try reader.readSFixed64()
        case 13: floatValue = try reader.readFloat()
        case 14: doubleValue = try reader.readDouble()
        case 15: stringValue = try reader.readString()
        case 16: bytesValue = try reader.readBytes()
        case 17:
            var value = inner ?? Inner()
            try reader.readMessage(into: &value)
            inner = value
        case 18: try reader.readRepeatedInt32(into: &repeatedInt32)
        case 19: try reader.readRepeatedString(into: &repeatedString)
        case 20: try reader.readRepeatedMessage(into: &repeatedInner)
        case 21: try reader.readMapEntry(into: &labels)
        case 22: try reader.readMapEntry(into: &counts)
        case 23: choice = .name(try reader.readString())
        case 24:
            // A repeated occurrence of the same oneof message member merges.
            var value = Inner()
            if case let .inner(existing)? = choice { value = existing }
            try reader.readMessage(into: &value)
            choice = .inner(value)
        case 25: choice = .number(try reader.readInt64())
        case 26: try reader.readRepeatedEnum(into: &colors)
        case 27: try reader.readRepeatedDouble(into: &repeatedDouble)
        case 28: try reader.readRepeatedSInt64(into: &repeatedSInt64)
        case 29:
            var value = recursive ?? TestMessage()
            try reader.readMessage(into: &value)
            recursive = value
        default: try reader.skipField()
        }
    }
}
