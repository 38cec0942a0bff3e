import Wire

/// google.protobuf.FileDescriptorProto, the part the generator reads: name = 1, package = 2,
/// dependency = 3, message_type = 4, enum_type = 5, service = 6, source_code_info = 9,
/// syntax = 12.
///
/// This and the other types of this folder are the generator's bootstrap: written by hand once
/// over the Wire codec so the generator needs no generated code of its own.
struct FileDescriptor: ProtoMessage {
    var name = ""
    var package = ""
    var dependencies: [String] = []
    var messages: [MessageDescriptor] = []
    var enums: [EnumDescriptor] = []
    var services: [ServiceDescriptor] = []
    var sourceCodeInfo: SourceCodeInfo?
    var syntax = ""

    init() {}

    func encode(to writer: inout ProtoWriter) {
        if !name.isEmpty { writer.writeString(field: 1, name) }
        if !package.isEmpty { writer.writeString(field: 2, package) }
        for dependency in dependencies { writer.writeString(field: 3, dependency) }
        for message in messages { writer.writeMessage(field: 4, message) }
        for item in enums { writer.writeMessage(field: 5, item) }
        for service in services { writer.writeMessage(field: 6, service) }
        if let sourceCodeInfo { writer.writeMessage(field: 9, sourceCodeInfo) }
        if !syntax.isEmpty { writer.writeString(field: 12, syntax) }
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: name = try reader.readString()
        case 2: package = try reader.readString()
        case 3: try reader.readRepeatedString(into: &dependencies)
        case 4: try reader.readRepeatedMessage(into: &messages)
        case 5: try reader.readRepeatedMessage(into: &enums)
        case 6: try reader.readRepeatedMessage(into: &services)
        case 9: sourceCodeInfo = try reader.mergeMessage(sourceCodeInfo)
        case 12: syntax = try reader.readString()
        default: try reader.skipField()
        }
    }
}
