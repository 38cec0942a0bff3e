import Wire

/// google.protobuf.SourceCodeInfo: location = 1, each path = 1 (packed), leading_comments = 3,
/// trailing_comments = 4.
struct SourceCodeInfo: ProtoMessage {
    struct Location: ProtoMessage {
        var path: [Int32] = []
        var leadingComments = ""
        var trailingComments = ""

        init() {}

        func encode(to writer: inout ProtoWriter) {
            writer.writePackedInt32(field: 1, path)
            if !leadingComments.isEmpty { writer.writeString(field: 3, leadingComments) }
            if !trailingComments.isEmpty { writer.writeString(field: 4, trailingComments) }
        }

        mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
            switch field {
            case 1: try reader.readRepeatedInt32(into: &path)
            case 3: leadingComments = try reader.readString()
            case 4: trailingComments = try reader.readString()
            default: try reader.skipField()
            }
        }
    }

    var locations: [Location] = []

    init() {}

    func encode(to writer: inout ProtoWriter) {
        for location in locations { writer.writeMessage(field: 1, location) }
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: try reader.readRepeatedMessage(into: &locations)
        default: try reader.skipField()
        }
    }
}
