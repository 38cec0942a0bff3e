/// The claims of a JWT (RFC 7519 §4): a JSON object with typed accessors.
package struct JWTClaims: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// Every claim, registered or private.
    package var values: [String: JSONValue]

    package init(_ values: [String: JSONValue]) {
        self.values = values
    }

    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.values = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    /// Claims from a JWS payload; throws `.malformed` unless it is a JSON object.
    package init(payload: [UInt8]) throws {
        self.values = try JSONValue.parseObject(payload)
    }

    /// The claim, whatever its type.
    package subscript(name: String) -> JSONValue? {
        get { self.values[name] }
        set { self.values[name] = newValue }
    }

    /// The claim if it is a string.
    package func string(_ name: String) -> String? {
        self.values[name]?.stringValue
    }

    /// The claim if it is an integer.
    package func int64(_ name: String) -> Int64? {
        self.values[name]?.int64Value
    }

    /// The claim if it is a Boolean.
    package func bool(_ name: String) -> Bool? {
        self.values[name]?.boolValue
    }

    /// The claim as strings if it is a string (one element) or an array of strings, as `aud` may be.
    package func strings(_ name: String) -> [String]? {
        switch self.values[name] {
        case .string(let value)?:
            return [value]
        case .array(let elements)?:
            let strings = elements.compactMap(\.stringValue)
            return strings.count == elements.count ? strings : nil
        default:
            return nil
        }
    }

    /// A NumericDate claim (`exp`, `nbf`, `iat`) in whole seconds since 1970, rounded down; nil
    /// if absent or not a finite number.
    package func numericDate(_ name: String) -> Int64? {
        switch self.values[name] {
        case .integer(let value)?:
            return value
        case .number(let value)? where value.isFinite && abs(value) < 1e15:
            return Int64(value.rounded(.down))
        default:
            return nil
        }
    }

    /// The claims as compact JSON with sorted keys, a JWS payload.
    package func serialized() -> [UInt8] {
        JSONValue.object(self.values).serialized()
    }
}
