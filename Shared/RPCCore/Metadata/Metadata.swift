/// gRPC custom metadata: ordered key/value pairs with lowercase keys. Keys ending in `-bin`
/// hold bytes, sent base64-encoded; all others hold ASCII text.
public struct Metadata: Sendable, Equatable, Sequence {
    public enum Value: Sendable, Equatable {
        case string(String)
        case binary([UInt8])
    }

    public struct Element: Sendable, Equatable {
        public var key: String
        public var value: Value
    }

    private var elements: [Element] = []

    public init() {}

    public init(_ pairs: KeyValuePairs<String, String>) {
        for (key, value) in pairs { addString(value, forKey: key) }
    }

    public var isEmpty: Bool { elements.isEmpty }
    public var count: Int { elements.count }

    public func makeIterator() -> IndexingIterator<[Element]> { elements.makeIterator() }

    /// Adds a text value; the key is lowercased.
    public mutating func addString(_ value: String, forKey key: String) {
        elements.append(Element(key: Self.lowercased(key), value: .string(value)))
    }

    /// Adds a binary value; the key must end in `-bin`.
    public mutating func addBinary(_ value: [UInt8], forKey key: String) {
        elements.append(Element(key: Self.lowercased(key), value: .binary(value)))
    }

    /// `key` lowercased; a key that already is (every key received over HTTP/2, which requires
    /// lowercase names) is kept as it is, without the copy and Unicode tables of `lowercased()`.
    private static func lowercased(_ key: String) -> String {
        key.utf8.allSatisfy { $0 < 0x80 && !($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) } ? key : key.lowercased()
    }

    /// The first text value for `key`.
    public subscript(string key: String) -> String? {
        for element in elements where element.key == key {
            if case .string(let value) = element.value { return value }
        }
        return nil
    }

    /// The first binary value for `key`.
    public subscript(binary key: String) -> [UInt8]? {
        for element in elements where element.key == key {
            if case .binary(let value) = element.value { return value }
        }
        return nil
    }

    public mutating func removeAll(forKey key: String) {
        elements.removeAll { $0.key == key }
    }
}

extension Metadata {
    /// Headers that belong to the protocol, never exposed as metadata.
    package static func isReserved(_ name: String) -> Bool {
        // Checked for every received header: the first byte settles most names without the
        // string comparisons below (every reserved name starts with one of these letters).
        switch name.utf8.first {
        case UInt8(ascii: ":"): return true
        case UInt8(ascii: "c"), UInt8(ascii: "t"), UInt8(ascii: "g"), UInt8(ascii: "h"), UInt8(ascii: "u"), UInt8(ascii: "k"): break
        default: return false
        }
        // Then the length: each name is compared with at most three of the same length, not
        // with all fourteen in turn (a request carries about eight such headers).
        switch name.utf8.count {
        case 2: return name == "te"
        case 4: return name == "host"
        case 7: return name == "upgrade"
        case 10: return name == "connection" || name == "keep-alive"
        case 11: return name == "grpc-status"
        case 12: return name == "content-type" || name == "grpc-timeout" || name == "grpc-message"
        case 13: return name == "grpc-encoding"
        case 14: return name == "content-length"
        case 17: return name == "transfer-encoding"
        case 20: return name == "grpc-accept-encoding"
        case 23: return name == "grpc-status-details-bin"
        default: return false
        }
    }
}
