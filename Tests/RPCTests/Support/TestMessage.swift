import Wire

/// The message every test service speaks: `rv.test.TestMessage { string text = 1; int64 number = 2;
/// bytes payload = 3; }`.
struct TestMessage: ProtoMessage {
    var text = ""
    var number: Int64 = 0
    var payload: [UInt8] = []

    init() {}

    init(text: String = "", number: Int64 = 0, payload: [UInt8] = []) {
        self.text = text
        self.number = number
        self.payload = payload
    }

    func encode(to writer: inout ProtoWriter) {
        if !text.isEmpty { writer.writeString(field: 1, text) }
        if number != 0 { writer.writeInt64(field: 2, number) }
        if !payload.isEmpty { writer.writeBytes(field: 3, payload) }
    }

    mutating func decodeField(_ field: Int, from reader: inout ProtoReader) throws {
        switch field {
        case 1: text = try reader.readString()
        case 2: number = try reader.readInt64()
        case 3: payload = try reader.readBytes()
        default: try reader.skipField()
        }
    }
}
