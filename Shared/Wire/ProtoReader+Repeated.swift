extension ProtoReader {
    /// Appends one `int32` or a packed run of them.
    public mutating func readRepeatedInt32(into values: inout [Int32]) throws {
        try readRepeatedVarints(into: &values) { Int32(truncatingIfNeeded: $0) }
    }

    /// Appends one `int64` or a packed run of them.
    public mutating func readRepeatedInt64(into values: inout [Int64]) throws {
        try readRepeatedVarints(into: &values) { Int64(bitPattern: $0) }
    }

    /// Appends one `uint32` or a packed run of them.
    public mutating func readRepeatedUInt32(into values: inout [UInt32]) throws {
        try readRepeatedVarints(into: &values) { UInt32(truncatingIfNeeded: $0) }
    }

    /// Appends one `uint64` or a packed run of them.
    public mutating func readRepeatedUInt64(into values: inout [UInt64]) throws {
        try readRepeatedVarints(into: &values) { $0 }
    }

    /// Appends one `sint32` or a packed run of them.
    public mutating func readRepeatedSInt32(into values: inout [Int32]) throws {
        try readRepeatedVarints(into: &values) { ZigZag.decoded(UInt32(truncatingIfNeeded: $0)) }
    }

    /// Appends one `sint64` or a packed run of them.
    public mutating func readRepeatedSInt64(into values: inout [Int64]) throws {
        try readRepeatedVarints(into: &values) { ZigZag.decoded($0) }
    }

    /// Appends one `bool` or a packed run of them.
    public mutating func readRepeatedBool(into values: inout [Bool]) throws {
        try readRepeatedVarints(into: &values) { $0 != 0 }
    }

    /// Appends one raw enum number or a packed run of them.
    public mutating func readRepeatedEnum(into values: inout [Int32]) throws {
        try readRepeatedInt32(into: &values)
    }

    /// Appends one ``ProtoEnum`` value or a packed run of them.
    public mutating func readRepeatedEnum<E: ProtoEnum>(into values: inout [E]) throws {
        try readRepeatedVarints(into: &values) { E(rawValue: Int32(truncatingIfNeeded: $0)) }
    }

    /// Appends one `fixed32` or a packed run of them.
    public mutating func readRepeatedFixed32(into values: inout [UInt32]) throws {
        try readRepeatedFixed32s(into: &values) { $0 }
    }

    /// Appends one `fixed64` or a packed run of them.
    public mutating func readRepeatedFixed64(into values: inout [UInt64]) throws {
        try readRepeatedFixed64s(into: &values) { $0 }
    }

    /// Appends one `sfixed32` or a packed run of them.
    public mutating func readRepeatedSFixed32(into values: inout [Int32]) throws {
        try readRepeatedFixed32s(into: &values) { Int32(bitPattern: $0) }
    }

    /// Appends one `sfixed64` or a packed run of them.
    public mutating func readRepeatedSFixed64(into values: inout [Int64]) throws {
        try readRepeatedFixed64s(into: &values) { Int64(bitPattern: $0) }
    }

    /// Appends one `float` or a packed run of them.
    public mutating func readRepeatedFloat(into values: inout [Float]) throws {
        try readRepeatedFixed32s(into: &values) { Float(bitPattern: $0) }
    }

    /// Appends one `double` or a packed run of them.
    public mutating func readRepeatedDouble(into values: inout [Double]) throws {
        try readRepeatedFixed64s(into: &values) { Double(bitPattern: $0) }
    }

    /// Appends one `string` (repeated strings are never packed).
    public mutating func readRepeatedString(into values: inout [String]) throws {
        values.append(try readString())
    }

    /// Appends one `bytes` value (repeated bytes are never packed).
    public mutating func readRepeatedBytes(into values: inout [[UInt8]]) throws {
        values.append(try readBytes())
    }

    /// Appends one embedded message (repeated messages are never packed).
    public mutating func readRepeatedMessage<M: ProtoMessage>(into values: inout [M]) throws {
        values.append(try readMessage(M.self))
    }

    // MARK: - Packed or unpacked

    @inline(__always)
    private mutating func readRepeatedVarints<T>(
        into values: inout [T],
        _ convert: (UInt64) -> T
    ) throws {
        guard pendingWireType == .lengthDelimited else {
            try consume(.varint)
            values.append(convert(try readRawVarint()))
            return
        }
        try consume(.lengthDelimited)
        let count = try readLength()
        let outerEnd = end
        // `readLength` checked `count <= end - index`.
        end = index + count
        while index < end {
            values.append(convert(try readRawVarint()))
        }
        end = outerEnd
    }

    @inline(__always)
    private mutating func readRepeatedFixed32s<T>(
        into values: inout [T],
        _ convert: (UInt32) -> T
    ) throws {
        guard pendingWireType == .lengthDelimited else {
            try consume(.fixed32)
            values.append(convert(try readRawFixed32()))
            return
        }
        try consume(.lengthDelimited)
        let count = try readLength()
        guard count % 4 == 0 else {
            throw fieldError(.truncated)
        }
        values.reserveAdditionalCapacity(count / 4)
        for _ in 0..<(count / 4) {
            values.append(convert(try readRawFixed32()))
        }
    }

    @inline(__always)
    private mutating func readRepeatedFixed64s<T>(
        into values: inout [T],
        _ convert: (UInt64) -> T
    ) throws {
        guard pendingWireType == .lengthDelimited else {
            try consume(.fixed64)
            values.append(convert(try readRawFixed64()))
            return
        }
        try consume(.lengthDelimited)
        let count = try readLength()
        guard count % 8 == 0 else {
            throw fieldError(.truncated)
        }
        values.reserveAdditionalCapacity(count / 8)
        for _ in 0..<(count / 8) {
            values.append(convert(try readRawFixed64()))
        }
    }
}
