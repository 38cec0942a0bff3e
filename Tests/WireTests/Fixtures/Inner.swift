import Wire

/// `message Inner` in wire_test.proto.
struct Inner: ProtoMessage {
    /// Field 1, int64.
    var id: Int64 = 0
    /// Field 2, string.
    var name = ""
    /// Field 3, repeated int32 (packed).
    var values: [Int32] = []

    init() {}

    init(id: Int64 = 0, name: String = "", values: [Int32] = []) {
        self.id = id
        self.name = name
        self.values = values
    }

    func encode(to writer: inout ProtoWriter) {
        if id != 0 { writer.writeInt64(field: 1, id) }
        if !name.isEmpty { writer.writeString(field: 2, name) }
        writer.writePackedInt32(field: 3, values)
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: id = try reader.readInt64()
        case 2: name = try reader.readString()
        case 3: try reader.readRepeatedInt32(into: &values)
        default: try reader.skipField()
        }
    }
}
