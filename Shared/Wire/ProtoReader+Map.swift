extension ProtoReader {
    /// Reads one map entry (key in field 1, value in field 2) and stores it in `map`.
    ///
    /// A missing key or value takes its default, unknown entry fields are skipped, and a
    /// repeated key replaces the earlier value.
    public mutating func readMapEntry<Key: Hashable, Value>(
        into map: inout [Key: Value],
        defaultKey: Key,
        defaultValue: Value,
        readKey: (inout ProtoReader) throws -> Key,
        readValue: (inout ProtoReader) throws -> Value
    ) throws {
        let (key, value) = try readEmbedded { entry in
            var key = defaultKey
            var value = defaultValue
            while let next = try entry.nextField() {
                switch next.field {
                case 1: key = try readKey(&entry)
                case 2: value = try readValue(&entry)
                default: try entry.skipField()
                }
            }
            return (key, value)
        }
        map[key] = value
    }

    /// Reads one `map<string, string>` entry into `map`.
    public mutating func readMapEntry(into map: inout [String: String]) throws {
        try readMapEntry(into: &map, defaultKey: "", defaultValue: "") {
            try $0.readString()
        } readValue: {
            try $0.readString()
        }
    }

    /// Reads one `map<string, int32>` entry into `map`.
    public mutating func readMapEntry(into map: inout [String: Int32]) throws {
        try readMapEntry(into: &map, defaultKey: "", defaultValue: 0) {
            try $0.readString()
        } readValue: {
            try $0.readInt32()
        }
    }

    /// Reads one `map<string, int64>` entry into `map`.
    public mutating func readMapEntry(into map: inout [String: Int64]) throws {
        try readMapEntry(into: &map, defaultKey: "", defaultValue: 0) {
            try $0.readString()
        } readValue: {
            try $0.readInt64()
        }
    }

    /// Reads one `map<string, Message>` entry into `map`.
    public mutating func readMapEntry<M: ProtoMessage>(into map: inout [String: M]) throws {
        try readMapEntry(into: &map, defaultKey: "", defaultValue: M()) {
            try $0.readString()
        } readValue: {
            try $0.readMessage(M.self)
        }
    }
}
