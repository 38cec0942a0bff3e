extension ProtoWriter {
    /// Writes `values` as one packed `int32` field; nothing for an empty array.
    public mutating func writePackedInt32(field: Int, _ values: [Int32]) {
        writePackedVarints(field: field, values) { UInt64(bitPattern: Int64($0)) }
    }

    /// Writes `values` as one packed `int64` field; nothing for an empty array.
    public mutating func writePackedInt64(field: Int, _ values: [Int64]) {
        writePackedVarints(field: field, values) { UInt64(bitPattern: $0) }
    }

    /// Writes `values` as one packed `uint32` field; nothing for an empty array.
    public mutating func writePackedUInt32(field: Int, _ values: [UInt32]) {
        writePackedVarints(field: field, values) { UInt64($0) }
    }

    /// Writes `values` as one packed `uint64` field; nothing for an empty array.
    public mutating func writePackedUInt64(field: Int, _ values: [UInt64]) {
        writePackedVarints(field: field, values) { $0 }
    }

    /// Writes `values` as one packed `sint32` field; nothing for an empty array.
    public mutating func writePackedSInt32(field: Int, _ values: [Int32]) {
        writePackedVarints(field: field, values) { UInt64(ZigZag.encoded($0)) }
    }

    /// Writes `values` as one packed `sint64` field; nothing for an empty array.
    public mutating func writePackedSInt64(field: Int, _ values: [Int64]) {
        writePackedVarints(field: field, values) { ZigZag.encoded($0) }
    }

    /// Writes `values` as one packed `bool` field; nothing for an empty array.
    public mutating func writePackedBool(field: Int, _ values: [Bool]) {
        writePackedVarints(field: field, values) { $0 ? 1 : 0 }
    }

    /// Writes raw enum numbers as one packed field; nothing for an empty array.
    public mutating func writePackedEnum(field: Int, _ values: [Int32]) {
        writePackedInt32(field: field, values)
    }

    /// Writes ``ProtoEnum`` values as one packed field; nothing for an empty array.
    public mutating func writePackedEnum<E: ProtoEnum>(field: Int, _ values: [E]) {
        writePackedVarints(field: field, values) { UInt64(bitPattern: Int64($0.rawValue)) }
    }

    /// Writes `values` as one packed `fixed32` field; nothing for an empty array.
    public mutating func writePackedFixed32(field: Int, _ values: [UInt32]) {
        writePackedFixed32s(field: field, values) { $0 }
    }

    /// Writes `values` as one packed `fixed64` field; nothing for an empty array.
    public mutating func writePackedFixed64(field: Int, _ values: [UInt64]) {
        writePackedFixed64s(field: field, values) { $0 }
    }

    /// Writes `values` as one packed `sfixed32` field; nothing for an empty array.
    public mutating func writePackedSFixed32(field: Int, _ values: [Int32]) {
        writePackedFixed32s(field: field, values) { UInt32(bitPattern: $0) }
    }

    /// Writes `values` as one packed `sfixed64` field; nothing for an empty array.
    public mutating func writePackedSFixed64(field: Int, _ values: [Int64]) {
        writePackedFixed64s(field: field, values) { UInt64(bitPattern: $0) }
    }

    /// Writes `values` as one packed `float` field; nothing for an empty array.
    public mutating func writePackedFloat(field: Int, _ values: [Float]) {
        writePackedFixed32s(field: field, values) { $0.bitPattern }
    }

    /// Writes `values` as one packed `double` field; nothing for an empty array.
    public mutating func writePackedDouble(field: Int, _ values: [Double]) {
        writePackedFixed64s(field: field, values) { $0.bitPattern }
    }

    @inline(__always)
    private mutating func writePackedVarints<T>(field: Int, _ values: [T], _ encode: (T) -> UInt64) {
        guard !values.isEmpty else { return }
        var size = 0
        for value in values {
            size += Varint.encodedSize(of: encode(value))
        }
        writeTag(field: field, wireType: .lengthDelimited)
        writeVarint(UInt64(size))
        bytes.reserveAdditionalCapacity(size)
        for value in values {
            writeVarint(encode(value))
        }
    }

    @inline(__always)
    private mutating func writePackedFixed32s<T>(field: Int, _ values: [T], _ encode: (T) -> UInt32) {
        guard !values.isEmpty else { return }
        writeTag(field: field, wireType: .lengthDelimited)
        writeVarint(UInt64(values.count) * 4)
        bytes.reserveAdditionalCapacity(values.count * 4)
        for value in values {
            writeRawFixed32(encode(value))
        }
    }

    @inline(__always)
    private mutating func writePackedFixed64s<T>(field: Int, _ values: [T], _ encode: (T) -> UInt64) {
        guard !values.isEmpty else { return }
        writeTag(field: field, wireType: .lengthDelimited)
        writeVarint(UInt64(values.count) * 8)
        bytes.reserveAdditionalCapacity(values.count * 8)
        for value in values {
            writeRawFixed64(encode(value))
        }
    }
}
