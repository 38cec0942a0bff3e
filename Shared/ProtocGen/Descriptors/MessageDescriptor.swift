import Wire

/// google.protobuf.DescriptorProto: name = 1, field = 2, nested_type = 3, enum_type = 4,
/// options = 7 (only MessageOptions.map_entry = 7 is read), oneof_decl = 8.
struct MessageDescriptor: ProtoMessage {
    var name = ""
    var fields: [FieldDescriptor] = []
    var nestedMessages: [MessageDescriptor] = []
    var enums: [EnumDescriptor] = []
    var isMapEntry = false
    var oneofNames: [String] = []

    init() {}

    func encode(to writer: inout ProtoWriter) {
        if !name.isEmpty { writer.writeString(field: 1, name) }
        for field in fields { writer.writeMessage(field: 2, field) }
        for nested in nestedMessages { writer.writeMessage(field: 3, nested) }
        for item in enums { writer.writeMessage(field: 4, item) }
        if isMapEntry {
            writer.writeLengthDelimited(field: 7) { $0.writeBool(field: 7, true) }
        }
        for oneof in oneofNames {
            writer.writeLengthDelimited(field: 8) { $0.writeString(field: 1, oneof) }
        }
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: name = try reader.readString()
        case 2: try reader.readRepeatedMessage(into: &fields)
        case 3: try reader.readRepeatedMessage(into: &nestedMessages)
        case 4: try reader.readRepeatedMessage(into: &enums)
        case 7:
            let mapEntry = try reader.readEmbedded { options -> Bool in
                var mapEntry = false
                while let next = try options.nextField() {
                    if next.field == 7 { mapEntry = try options.readBool() } else { try options.skipField() }
                }
                return mapEntry
            }
            isMapEntry = isMapEntry || mapEntry
        case 8:
            let name = try reader.readEmbedded { oneof -> String in
                var name = ""
                while let next = try oneof.nextField() {
                    if next.field == 1 { name = try oneof.readString() } else { try oneof.skipField() }
                }
                return name
            }
            oneofNames.append(name)
        default: try reader.skipField()
        }
    }
}
