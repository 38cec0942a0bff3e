extension ProtoReader {
    /// Reads an `int32`; a 64-bit varint is truncated to its low 32 bits, as protobuf does.
    @inline(__always)
    public mutating func readInt32() throws -> Int32 {
        try consume(.varint)
        return Int32(truncatingIfNeeded: try readRawVarint())
    }

    /// Reads an `int64`.
    @inline(__always)
    public mutating func readInt64() throws -> Int64 {
        try consume(.varint)
        return Int64(bitPattern: try readRawVarint())
    }

    /// Reads a `uint32`; a 64-bit varint is truncated to its low 32 bits.
    @inline(__always)
    public mutating func readUInt32() throws -> UInt32 {
        try consume(.varint)
        return UInt32(truncatingIfNeeded: try readRawVarint())
    }

    /// Reads a `uint64`.
    @inline(__always)
    public mutating func readUInt64() throws -> UInt64 {
        try consume(.varint)
        return try readRawVarint()
    }

    /// Reads a ZigZag-encoded `sint32`.
    @inline(__always)
    public mutating func readSInt32() throws -> Int32 {
        try consume(.varint)
        return ZigZag.decoded(UInt32(truncatingIfNeeded: try readRawVarint()))
    }

    /// Reads a ZigZag-encoded `sint64`.
    @inline(__always)
    public mutating func readSInt64() throws -> Int64 {
        try consume(.varint)
        return ZigZag.decoded(try readRawVarint())
    }

    /// Reads a `bool`; any non-zero varint is true.
    @inline(__always)
    public mutating func readBool() throws -> Bool {
        try consume(.varint)
        return try readRawVarint() != 0
    }

    /// Reads an enum's raw number, known or not.
    @inline(__always)
    public mutating func readEnum() throws -> Int32 {
        try readInt32()
    }

    /// Reads an enum as a ``ProtoEnum``, keeping unknown numbers.
    @inline(__always)
    public mutating func readEnum<E: ProtoEnum>(as type: E.Type) throws -> E {
        E(rawValue: try readInt32())
    }

    /// Reads a `fixed32`.
    @inline(__always)
    public mutating func readFixed32() throws -> UInt32 {
        try consume(.fixed32)
        return try readRawFixed32()
    }

    /// Reads a `fixed64`.
    @inline(__always)
    public mutating func readFixed64() throws -> UInt64 {
        try consume(.fixed64)
        return try readRawFixed64()
    }

    /// Reads an `sfixed32`.
    @inline(__always)
    public mutating func readSFixed32() throws -> Int32 {
        try consume(.fixed32)
        return Int32(bitPattern: try readRawFixed32())
    }

    /// Reads an `sfixed64`.
    @inline(__always)
    public mutating func readSFixed64() throws -> Int64 {
        try consume(.fixed64)
        return Int64(bitPattern: try readRawFixed64())
    }

    /// Reads a `float`.
    @inline(__always)
    public mutating func readFloat() throws -> Float {
        try consume(.fixed32)
        return Float(bitPattern: try readRawFixed32())
    }

    /// Reads a `double`.
    @inline(__always)
    public mutating func readDouble() throws -> Double {
        try consume(.fixed64)
        return Double(bitPattern: try readRawFixed64())
    }

    /// Reads a `string`, rejecting invalid UTF-8.
    public mutating func readString() throws -> String {
        try consume(.lengthDelimited)
        let count = try readLength()
        let string = withRawBytes(count: count) { raw -> String? in
            UTF8Validation.isValid(raw) ? String(decoding: raw, as: UTF8.self) : nil
        }
        guard let string else {
            throw fieldError(.invalidUTF8)
        }
        return string
    }

    /// Reads a `bytes` value.
    public mutating func readBytes() throws -> [UInt8] {
        try consume(.lengthDelimited)
        let count = try readLength()
        return withRawBytes(count: count) { Array($0) }
    }
}
