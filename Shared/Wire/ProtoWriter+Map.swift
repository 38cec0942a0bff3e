extension ProtoWriter {
    /// Writes one map entry: a nested message holding the key in field 1, the value in field 2.
    ///
    /// Both closures should always write their field, even a default, as protobuf does for
    /// map entries.
    public mutating func writeMapEntry(
        field: Int,
        writeKey: (inout ProtoWriter) -> Void,
        writeValue: (inout ProtoWriter) -> Void
    ) {
        writeLengthDelimited(field: field) { entry in
            writeKey(&entry)
            writeValue(&entry)
        }
    }

    /// Writes one `map<string, string>` entry.
    public mutating func writeMapEntry(field: Int, key: String, value: String) {
        writeMapEntry(field: field) { $0.writeString(field: 1, key) } writeValue: {
            $0.writeString(field: 2, value)
        }
    }

    /// Writes one `map<string, int32>` entry.
    public mutating func writeMapEntry(field: Int, key: String, value: Int32) {
        writeMapEntry(field: field) { $0.writeString(field: 1, key) } writeValue: {
            $0.writeInt32(field: 2, value)
        }
    }

    /// Writes one `map<string, int64>` entry.
    public mutating func writeMapEntry(field: Int, key: String, value: Int64) {
        writeMapEntry(field: field) { $0.writeString(field: 1, key) } writeValue: {
            $0.writeInt64(field: 2, value)
        }
    }

    /// Writes one `map<string, Message>` entry.
    public mutating func writeMapEntry<M: ProtoMessage>(field: Int, key: String, value: M) {
        writeMapEntry(field: field) { $0.writeString(field: 1, key) } writeValue: {
            $0.writeMessage(field: 2, value)
        }
    }

    /// Writes a `map<string, string>` field, one entry per key, in the keys' UTF-8 byte order.
    public mutating func writeMap(field: Int, _ map: [String: String]) {
        for key in map.keys.sortedByUTF8() {
            // Safe: `key` was just taken from `map.keys`.
            writeMapEntry(field: field, key: key, value: map[key]!)
        }
    }

    /// Writes a `map<string, int32>` field, one entry per key, in the keys' UTF-8 byte order.
    public mutating func writeMap(field: Int, _ map: [String: Int32]) {
        for key in map.keys.sortedByUTF8() {
            // Safe: `key` was just taken from `map.keys`.
            writeMapEntry(field: field, key: key, value: map[key]!)
        }
    }

    /// Writes a `map<string, int64>` field, one entry per key, in the keys' UTF-8 byte order.
    public mutating func writeMap(field: Int, _ map: [String: Int64]) {
        for key in map.keys.sortedByUTF8() {
            // Safe: `key` was just taken from `map.keys`.
            writeMapEntry(field: field, key: key, value: map[key]!)
        }
    }

    /// Writes a `map<string, Message>` field, one entry per key, in the keys' UTF-8 byte order.
    public mutating func writeMap<M: ProtoMessage>(field: Int, _ map: [String: M]) {
        for key in map.keys.sortedByUTF8() {
            // Safe: `key` was just taken from `map.keys`.
            writeMapEntry(field: field, key: key, value: map[key]!)
        }
    }
}

extension Collection<String> {
    /// The strings in ascending order of their UTF-8 bytes, the key order of deterministic
    /// serialization in protobuf's C++, Go and pure-Python runtimes. `String`'s `<` is not that order: it
    /// compares canonically equivalent forms, so "e\u{301}" sorts as "é", after "f".
    fileprivate func sortedByUTF8() -> [String] {
        sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
