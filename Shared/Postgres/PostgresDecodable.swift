package import Foundation

/// A Swift type that can be read from a binary-format result cell.
///
/// `decode` receives the cell's bytes and column type and returns nil when the type is not
/// one it accepts or the bytes are malformed; the row turns that into a `.decodingFailed`
/// error naming the column, never the bytes.
package protocol PostgresDecodable: Sendable {
    static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> Self?
    /// The value for SQL NULL; nil (the default) when the type cannot represent it.
    static var decodedNull: Self? { get }
}

extension PostgresDecodable {
    package static var decodedNull: Self? { nil }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    package static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> Self? {
        Wrapped.decode(bytes, type: type).map { .some($0) }
    }

    package static var decodedNull: Self? { .some(.none) }
}

extension String: PostgresDecodable {
    package static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> String? {
        switch type {
        case .text, .varchar, .bpchar, .name, .json, .unknown, .char:
            return String(decoding: bytes, as: UTF8.self)
        case .jsonb:
            guard bytes.first == 1 else { return nil }  // binary jsonb version 1
            return String(decoding: bytes.dropFirst(), as: UTF8.self)
        default:
            return nil
        }
    }
}

extension Int64: PostgresDecodable {
    package static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> Int64? {
        var reader = ByteReader(bytes)
        let value: Int64? = switch type {
        case .int8: reader.readInteger(as: Int64.self)
        case .int4: reader.readInteger(as: Int32.self).map(Int64.init)
        case .int2: reader.readInteger(as: Int16.self).map(Int64.init)
        default: nil
        }
        return reader.isAtEnd ? value : nil
    }
}

extension Int: PostgresDecodable {
    package static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> Int? {
        Int64.decode(bytes, type: type).flatMap { Int(exactly: $0) }
    }
}

extension Int32: PostgresDecodable {
    package static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> Int32? {
        guard type == .int4 || type == .int2 else { return nil }
        return Int64.decode(bytes, type: type).flatMap { Int32(exactly: $0) }
    }
}

extension Int16: PostgresDecodable {
    package static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> Int16? {
        guard type == .int2 else { return nil }
        return Int64.decode(bytes, type: type).flatMap { Int16(exactly: $0) }
    }
}

/// `"char"` (one byte); it also lets `[UInt8]` decode `bytea` and `jsonb` through `Array`.
extension UInt8: PostgresDecodable {
    package static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> UInt8? {
        type == .char && bytes.count == 1 ? bytes.first : nil
    }
}

extension Bool: PostgresDecodable {
    package static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> Bool? {
        guard type == .bool, bytes.count == 1, let byte = bytes.first else { return nil }
        return byte != 0
    }
}

extension Double: PostgresDecodable {
    package static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> Double? {
        var reader = ByteReader(bytes)
        let value: Double? = switch type {
        case .float8: reader.readInteger(as: UInt64.self).map(Double.init(bitPattern:))
        case .float4: reader.readInteger(as: UInt32.self).map { Double(Float(bitPattern: $0)) }
        default: nil
        }
        return reader.isAtEnd ? value : nil
    }
}

extension PostgresNumeric: PostgresDecodable {
    package static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> PostgresNumeric? {
        type == .numeric ? PostgresNumeric(binary: bytes) : nil
    }
}

extension UUID: PostgresDecodable {
    package static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> UUID? {
        guard type == .uuid, bytes.count == 16 else { return nil }
        let b = Array(bytes)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))  // count checked
    }
}

extension Date: PostgresDecodable {
    package static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> Date? {
        guard type == .timestamptz || type == .timestamp else { return nil }
        var reader = ByteReader(bytes)
        guard let micros = reader.readInteger(as: Int64.self), reader.isAtEnd else { return nil }
        return PostgresTimestamp.date(fromMicroseconds: micros)
    }
}

/// One-dimensional arrays (`text[]`, `int8[]`, `uuid[]`…; NULL elements need an Optional
/// element type), plus `[UInt8]` from `bytea` or `jsonb` (the document's UTF-8 text).
extension Array: PostgresDecodable where Element: PostgresDecodable {
    package static func decode(_ bytes: ArraySlice<UInt8>, type: PostgresType) -> [Element]? {
        if Element.self == UInt8.self, type == .bytea || type == .jsonb {
            let body = type == .jsonb ? (bytes.first == 1 ? bytes.dropFirst() : nil) : bytes
            return body.map { Array<UInt8>($0) as? [Element] } ?? nil  // Element is UInt8: cast holds
        }
        var reader = ByteReader(bytes)
        guard let dimensions = reader.readInteger(as: Int32.self),
              reader.readInteger(as: Int32.self) != nil,  // has-null flag: elements say it anyway
              let elementOID = reader.readInteger(as: UInt32.self) else { return nil }
        if dimensions == 0 { return reader.isAtEnd ? [] : nil }
        guard dimensions == 1, let count = reader.readInteger(as: Int32.self), count >= 0,
              reader.readInteger(as: Int32.self) != nil else { return nil }
        var elements: [Element] = []
        elements.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let length = reader.readInteger(as: Int32.self) else { return nil }
            if length < 0 {
                guard let null = Element.decodedNull else { return nil }
                elements.append(null)
            } else {
                guard let cell = reader.readBytes(Int(length)),
                      let element = Element.decode(cell, type: PostgresType(oid: elementOID)) else { return nil }
                elements.append(element)
            }
        }
        return reader.isAtEnd ? elements : nil
    }
}
