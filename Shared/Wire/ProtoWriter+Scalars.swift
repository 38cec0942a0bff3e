extension ProtoWriter {
    /// Writes an `int32` field; negative values take ten bytes, sign-extended to 64 bits.
    @inline(__always)
    public mutating func writeInt32(field: Int, _ value: Int32) {
        writeTag(field: field, wireType: .varint)
        writeVarint(UInt64(bitPattern: Int64(value)))
    }

    /// Writes an `int64` field.
    @inline(__always)
    public mutating func writeInt64(field: Int, _ value: Int64) {
        writeTag(field: field, wireType: .varint)
        writeVarint(UInt64(bitPattern: value))
    }

    /// Writes a `uint32` field.
    @inline(__always)
    public mutating func writeUInt32(field: Int, _ value: UInt32) {
        writeTag(field: field, wireType: .varint)
        writeVarint(UInt64(value))
    }

    /// Writes a `uint64` field.
    @inline(__always)
    public mutating func writeUInt64(field: Int, _ value: UInt64) {
        writeTag(field: field, wireType: .varint)
        writeVarint(value)
    }

    /// Writes a ZigZag-encoded `sint32` field.
    @inline(__always)
    public mutating func writeSInt32(field: Int, _ value: Int32) {
        writeTag(field: field, wireType: .varint)
        writeVarint(UInt64(ZigZag.encoded(value)))
    }

    /// Writes a ZigZag-encoded `sint64` field.
    @inline(__always)
    public mutating func writeSInt64(field: Int, _ value: Int64) {
        writeTag(field: field, wireType: .varint)
        writeVarint(ZigZag.encoded(value))
    }

    /// Writes a `bool` field as the varint 0 or 1.
    @inline(__always)
    public mutating func writeBool(field: Int, _ value: Bool) {
        writeTag(field: field, wireType: .varint)
        bytes.append(value ? 1 : 0)
    }

    /// Writes an enum field from its raw number (encoded like `int32`).
    @inline(__always)
    public mutating func writeEnum(field: Int, _ value: Int32) {
        writeInt32(field: field, value)
    }

    /// Writes an enum field from a ``ProtoEnum`` value.
    @inline(__always)
    public mutating func writeEnum<E: ProtoEnum>(field: Int, _ value: E) {
        writeInt32(field: field, value.rawValue)
    }

    /// Writes a `fixed32` field.
    @inline(__always)
    public mutating func writeFixed32(field: Int, _ value: UInt32) {
        writeTag(field: field, wireType: .fixed32)
        writeRawFixed32(value)
    }

    /// Writes a `fixed64` field.
    @inline(__always)
    public mutating func writeFixed64(field: Int, _ value: UInt64) {
        writeTag(field: field, wireType: .fixed64)
        writeRawFixed64(value)
    }

    /// Writes an `sfixed32` field.
    @inline(__always)
    public mutating func writeSFixed32(field: Int, _ value: Int32) {
        writeTag(field: field, wireType: .fixed32)
        writeRawFixed32(UInt32(bitPattern: value))
    }

    /// Writes an `sfixed64` field.
    @inline(__always)
    public mutating func writeSFixed64(field: Int, _ value: Int64) {
        writeTag(field: field, wireType: .fixed64)
        writeRawFixed64(UInt64(bitPattern: value))
    }

    /// Writes a `float` field (IEEE 754 bits, little-endian; NaN payloads are preserved).
    @inline(__always)
    public mutating func writeFloat(field: Int, _ value: Float) {
        writeTag(field: field, wireType: .fixed32)
        writeRawFixed32(value.bitPattern)
    }

    /// Writes a `double` field (IEEE 754 bits, little-endian; NaN payloads are preserved).
    @inline(__always)
    public mutating func writeDouble(field: Int, _ value: Double) {
        writeTag(field: field, wireType: .fixed64)
        writeRawFixed64(value.bitPattern)
    }

    /// Writes a `string` field as its UTF-8 bytes.
    @inline(__always)
    public mutating func writeString(field: Int, _ value: String) {
        writeTag(field: field, wireType: .lengthDelimited)
        let utf8 = value.utf8
        writeVarint(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// Writes a `bytes` field.
    @inline(__always)
    public mutating func writeBytes(field: Int, _ value: [UInt8]) {
        writeTag(field: field, wireType: .lengthDelimited)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }
}
