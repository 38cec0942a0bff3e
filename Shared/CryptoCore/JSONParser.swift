/// A strict RFC 8259 JSON parser for JOSE input: no trailing commas, comments or leading zeros,
/// duplicate object keys rejected (RFC 7515 §5.2 allows it, and it closes the gap where two
/// parsers would read different `alg`s), nesting bounded. Never traps on hostile input.
struct JSONParser {
    /// The deepest nesting of arrays and objects accepted; JOSE headers and claims are shallow.
    static let maximumDepth = 32

    private let bytes: [UInt8]
    private var index = 0

    /// Parses one JSON text, or throws `.malformed` without quoting the input.
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        let value = try parser.readValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw malformed("trailing characters") }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private static func malformed(_ reason: String) -> CryptoError {
        CryptoError(.malformed, "JSON: \(reason)")
    }

    private var current: UInt8? {
        self.index < self.bytes.count ? self.bytes[self.index] : nil
    }

    private mutating func skipWhitespace() {
        while let byte = self.current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            self.index += 1
        }
    }

    private mutating func expect(_ literal: StaticString) throws {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard self.bytes.count - self.index >= expected.count,
              self.bytes[self.index..<self.index + expected.count].elementsEqual(expected) else {
            throw Self.malformed("invalid literal")
        }
        self.index += expected.count
    }

    private mutating func readValue(depth: Int) throws -> JSONValue {
        guard depth <= Self.maximumDepth else { throw Self.malformed("nested too deeply") }
        self.skipWhitespace()
        guard let byte = self.current else { throw Self.malformed("unexpected end") }
        switch byte {
        case UInt8(ascii: "{"): return try self.readObject(depth: depth)
        case UInt8(ascii: "["): return try self.readArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try self.readString())
        case UInt8(ascii: "t"): try self.expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try self.expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try self.expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try self.readNumber()
        default: throw Self.malformed("unexpected character")
        }
    }

    private mutating func readObject(depth: Int) throws -> JSONValue {
        self.index += 1
        var members: [String: JSONValue] = [:]
        self.skipWhitespace()
        if self.current == UInt8(ascii: "}") {
            self.index += 1
            return .object(members)
        }
        while true {
            self.skipWhitespace()
            guard self.current == UInt8(ascii: "\"") else { throw Self.malformed("object key is not a string") }
            let key = try self.readString()
            self.skipWhitespace()
            guard self.current == UInt8(ascii: ":") else { throw Self.malformed("missing colon") }
            self.index += 1
            let value = try self.readValue(depth: depth + 1)
            guard members.updateValue(value, forKey: key) == nil else { throw Self.malformed("duplicate object key") }
            self.skipWhitespace()
            switch self.current {
            case UInt8(ascii: ","): self.index += 1
            case UInt8(ascii: "}"): self.index += 1; return .object(members)
            default: throw Self.malformed("unterminated object")
            }
        }
    }

    private mutating func readArray(depth: Int) throws -> JSONValue {
        self.index += 1
        var elements: [JSONValue] = []
        self.skipWhitespace()
        if self.current == UInt8(ascii: "]") {
            self.index += 1
            return .array(elements)
        }
        while true {
            elements.append(try self.readValue(depth: depth + 1))
            self.skipWhitespace()
            switch self.current {
            case UInt8(ascii: ","): self.index += 1
            case UInt8(ascii: "]"): self.index += 1; return .array(elements)
            default: throw Self.malformed("unterminated array")
            }
        }
    }

    private mutating func readString() throws -> String {
        self.index += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = self.current else { throw Self.malformed("unterminated string") }
            self.index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: utf8, as: UTF8.self) else {
                    throw Self.malformed("string is not valid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"):
                try self.readEscape(into: &utf8)
            case 0x00..<0x20:
                throw Self.malformed("control character in string")
            default:
                utf8.append(byte)
            }
        }
    }

    private mutating func readEscape(into utf8: inout [UInt8]) throws {
        guard let byte = self.current else { throw Self.malformed("unterminated escape") }
        self.index += 1
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
            UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
        ]
        if let replacement = simple[byte] {
            utf8.append(replacement)
            return
        }
        guard byte == UInt8(ascii: "u") else { throw Self.malformed("invalid escape") }
        var scalar = UInt32(try self.readHex4())
        if (0xD800..<0xDC00).contains(scalar) {
            // A high surrogate must be followed by an escaped low surrogate (RFC 8259 §7).
            guard self.current == UInt8(ascii: "\\") else { throw Self.malformed("lone surrogate") }
            self.index += 1
            guard self.current == UInt8(ascii: "u") else { throw Self.malformed("lone surrogate") }
            self.index += 1
            let low = UInt32(try self.readHex4())
            guard (0xDC00..<0xE000).contains(low) else { throw Self.malformed("lone surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw Self.malformed("lone surrogate") }
        utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
    }

    private mutating func readHex4() throws -> UInt16 {
        guard self.bytes.count - self.index >= 4 else { throw Self.malformed("short unicode escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = self.bytes[self.index]
            self.index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Self.malformed("invalid unicode escape")
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    private mutating func readNumber() throws -> JSONValue {
        let start = self.index
        if self.current == UInt8(ascii: "-") { self.index += 1 }
        // RFC 8259 §6: int = zero / ( digit1-9 *DIGIT ).
        if self.current == UInt8(ascii: "0") {
            self.index += 1
        } else {
            guard self.skipDigits() > 0 else { throw Self.malformed("invalid number") }
        }
        var isInteger = true
        if self.current == UInt8(ascii: ".") {
            self.index += 1
            isInteger = false
            guard self.skipDigits() > 0 else { throw Self.malformed("invalid number") }
        }
        if self.current == UInt8(ascii: "e") || self.current == UInt8(ascii: "E") {
            self.index += 1
            isInteger = false
            if self.current == UInt8(ascii: "+") || self.current == UInt8(ascii: "-") { self.index += 1 }
            guard self.skipDigits() > 0 else { throw Self.malformed("invalid number") }
        }
        let text = String(decoding: self.bytes[start..<self.index], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else { throw Self.malformed("number out of range") }
        return .number(number)
    }

    private mutating func skipDigits() -> Int {
        let start = self.index
        while let byte = self.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { self.index += 1 }
        return self.index - start
    }
}
