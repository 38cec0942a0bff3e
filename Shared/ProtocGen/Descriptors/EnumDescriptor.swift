import Wire

/// google.protobuf.EnumDescriptorProto: name = 1, value = 2.
struct EnumDescriptor: ProtoMessage {
    var name = ""
    var values: [EnumValueDescriptor] = []

    init() {}

    func encode(to writer: inout ProtoWriter) {
        if !name.isEmpty { writer.writeString(field: 1, name) }
        for value in values { writer.writeMessage(field: 2, value) }
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: name = try reader.readString()
        case 2: try reader.readRepeatedMessage(into: &values)
        default: try reader.skipField()
        }
    }
}

/// google.protobuf.EnumValueDescriptorProto: name = 1, number = 2, options = 3, of whose
/// EnumValueOptions only our extension `rendezvous.options.v1.status`
/// (``EnumValueDescriptor/statusOptionField``) is read.
struct EnumValueDescriptor: ProtoMessage {
    /// The field number of `extend google.protobuf.EnumValueOptions { StatusCode status }` in
    /// proto-docs/rendezvous/options/v1/options.proto.
    static let statusOptionField = 50_001

    var name = ""
    var number: Int32 = 0
    /// The gRPC status code the value carries as its `(rendezvous.options.v1.status)` option.
    var statusCode: Int32?

    init() {}

    func encode(to writer: inout ProtoWriter) {
        if !name.isEmpty { writer.writeString(field: 1, name) }
        if number != 0 { writer.writeInt32(field: 2, number) }
        if let statusCode {
            writer.writeLengthDelimited(field: 3) { $0.writeEnum(field: Self.statusOptionField, statusCode) }
        }
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: name = try reader.readString()
        case 2: number = try reader.readInt32()
        case 3:
            let status = try reader.readEmbedded { options -> Int32? in
                var status: Int32?
                while let next = try options.nextField() {
                    if next.field == Self.statusOptionField { status = try options.readEnum() } else { try options.skipField() }
                }
                return status
            }
            if let status { statusCode = status }
        default: try reader.skipField()
        }
    }
}
