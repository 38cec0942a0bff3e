import Wire

/// google.protobuf.FieldDescriptorProto: name = 1, number = 3, label = 4, type = 5,
/// type_name = 6, options = 8 (only FieldOptions.packed = 2 is read), oneof_index = 9,
/// proto3_optional = 17.
struct FieldDescriptor: ProtoMessage {
    /// FieldDescriptorProto.Label.
    enum Label: Int32, Sendable {
        case optional = 1
        case required = 2
        case repeated = 3
    }

    /// FieldDescriptorProto.Type.
    enum Kind: Int32, Sendable {
        case double = 1, float, int64, uint64, int32, fixed64, fixed32, bool, string, group, message, bytes
        case uint32, enumeration, sfixed32, sfixed64, sint32, sint64
    }

    var name = ""
    var number: Int32 = 0
    var labelNumber: Int32 = 0
    var kindNumber: Int32 = 0
    var typeName = ""
    /// FieldOptions.packed when the .proto sets it; nil when it does not.
    var packed: Bool?
    var oneofIndex: Int32?
    var isProto3Optional = false

    init() {}

    var label: Label { Label(rawValue: labelNumber) ?? .optional }

    /// The field's type, or nil for a number this generator does not know.
    var kind: Kind? { Kind(rawValue: kindNumber) }

    func encode(to writer: inout ProtoWriter) {
        if !name.isEmpty { writer.writeString(field: 1, name) }
        if number != 0 { writer.writeInt32(field: 3, number) }
        if labelNumber != 0 { writer.writeEnum(field: 4, labelNumber) }
        if kindNumber != 0 { writer.writeEnum(field: 5, kindNumber) }
        if !typeName.isEmpty { writer.writeString(field: 6, typeName) }
        if let packed {
            writer.writeLengthDelimited(field: 8) { $0.writeBool(field: 2, packed) }
        }
        if let oneofIndex { writer.writeInt32(field: 9, oneofIndex) }
        if isProto3Optional { writer.writeBool(field: 17, true) }
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: name = try reader.readString()
        case 3: number = try reader.readInt32()
        case 4: labelNumber = try reader.readEnum()
        case 5: kindNumber = try reader.readEnum()
        case 6: typeName = try reader.readString()
        case 8:
            let packed = try reader.readEmbedded { options -> Bool? in
                var packed: Bool?
                while let next = try options.nextField() {
                    if next.field == 2 { packed = try options.readBool() } else { try options.skipField() }
                }
                return packed
            }
            if let packed { self.packed = packed }
        case 9: oneofIndex = try reader.readInt32()
        case 17: isProto3Optional = try reader.readBool()
        default: try reader.skipField()
        }
    }
}
