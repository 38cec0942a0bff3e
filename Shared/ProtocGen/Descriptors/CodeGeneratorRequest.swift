import Wire

/// google.protobuf.compiler.CodeGeneratorRequest: file_to_generate = 1, parameter = 2,
/// proto_file = 15 (every file to generate and all its imports, dependencies first).
struct CodeGeneratorRequest: ProtoMessage {
    var filesToGenerate: [String] = []
    var parameter = ""
    var protoFiles: [FileDescriptor] = []

    init() {}

    func encode(to writer: inout ProtoWriter) {
        for file in filesToGenerate { writer.writeString(field: 1, file) }
        if !parameter.isEmpty { writer.writeString(field: 2, parameter) }
        for file in protoFiles { writer.writeMessage(field: 15, file) }
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: try reader.readRepeatedString(into: &filesToGenerate)
        case 2: parameter = try reader.readString()
        case 15: try reader.readRepeatedMessage(into: &protoFiles)
        default: try reader.skipField()
        }
    }
}

/// google.protobuf.compiler.CodeGeneratorResponse: error = 1, supported_features = 2,
/// file = 15 (name = 1, content = 15).
struct CodeGeneratorResponse: ProtoMessage {
    struct File: ProtoMessage {
        var name = ""
        var content = ""

        init() {}

        init(name: String, content: String) {
            self.name = name
            self.content = content
        }

        func encode(to writer: inout ProtoWriter) {
            if !name.isEmpty { writer.writeString(field: 1, name) }
            if !content.isEmpty { writer.writeString(field: 15, content) }
        }

        mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: name = try reader.readString()
            case 15: content = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    /// CodeGeneratorResponse.Feature.FEATURE_PROTO3_OPTIONAL.
    static let featureProto3Optional: UInt64 = 1

    var error: String?
    var supportedFeatures: UInt64 = 0
    var files: [File] = []

    init() {}

    func encode(to writer: inout ProtoWriter) {
        if let error { writer.writeString(field: 1, error) }
        if supportedFeatures != 0 { writer.writeUInt64(field: 2, supportedFeatures) }
        for file in files { writer.writeMessage(field: 15, file) }
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: error = try reader.readString()
        case 2: supportedFeatures = try reader.readUInt64()
        case 15: try reader.readRepeatedMessage(into: &files)
        default: try reader.skipField()
        }
    }
}
