import Wire

/// google.protobuf.ServiceDescriptorProto: name = 1, method = 2.
struct ServiceDescriptor: ProtoMessage {
    var name = ""
    var methods: [MethodDescriptor] = []

    init() {}

    func encode(to writer: inout ProtoWriter) {
        if !name.isEmpty { writer.writeString(field: 1, name) }
        for method in methods { writer.writeMessage(field: 2, method) }
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: name = try reader.readString()
        case 2: try reader.readRepeatedMessage(into: &methods)
        default: try reader.skipField()
        }
    }
}

/// google.protobuf.MethodDescriptorProto: name = 1, input_type = 2, output_type = 3,
/// client_streaming = 5, server_streaming = 6.
struct MethodDescriptor: ProtoMessage {
    var name = ""
    var inputType = ""
    var outputType = ""
    var clientStreaming = false
    var serverStreaming = false

    init() {}

    func encode(to writer: inout ProtoWriter) {
        if !name.isEmpty { writer.writeString(field: 1, name) }
        if !inputType.isEmpty { writer.writeString(field: 2, inputType) }
        if !outputType.isEmpty { writer.writeString(field: 3, outputType) }
        if clientStreaming { writer.writeBool(field: 5, true) }
        if serverStreaming { writer.writeBool(field: 6, true) }
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: name = try reader.readString()
        case 2: inputType = try reader.readString()
        case 3: outputType = try reader.readString()
        case 5: clientStreaming = try reader.readBool()
        case 6: serverStreaming = try reader.readBool()
        default: try reader.skipField()
        }
    }
}
