extension ProtoReader {
    /// Reads a base-128 varint without looking at the pending wire type.
    ///
    /// Accepts at most ten bytes; bits past the 64th in the tenth byte are dropped, as the
    /// reference implementations do.
    @inline(__always)
    mutating func readRawVarint() throws -> UInt64 {
        let start = index
        let limit = end
        let (value, next) = bytes.withUnsafeBufferPointer { buffer -> (UInt64, Int) in
            // Safe: `limit <= buffer.count` (the reader's invariant) and `i < limit` below.
            var i = start
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while i < limit {
                let byte = buffer[i]
                i += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 {
                    return (result, i)
                }
                shift += 7
                if shift >= 70 {
                    return (0, -2)
                }
            }
            return (0, -1)
        }
        guard next >= 0 else {
            throw fieldError(next == -1 ? .truncated : .malformedVarint)
        }
        index = next
        return value
    }

    /// Reads a length prefix, checking it fits in Int32 and inside the enclosing message.
    @inline(__always)
    mutating func readLength() throws -> Int {
        let length = try readRawVarint()
        guard length <= UInt64(Int32.max) else {
            throw fieldError(.lengthOutOfRange)
        }
        let count = Int(length)
        guard count <= end - index else {
            throw fieldError(.truncated)
        }
        return count
    }

    /// Reads four little-endian bytes.
    @inline(__always)
    mutating func readRawFixed32() throws -> UInt32 {
        guard end - index >= 4 else {
            throw fieldError(.truncated)
        }
        let offset = index
        index += 4
        return bytes.withUnsafeBytes { raw in
            // Safe: `offset + 4 <= end <= raw.count`.
            UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        }
    }

    /// Reads eight little-endian bytes.
    @inline(__always)
    mutating func readRawFixed64() throws -> UInt64 {
        guard end - index >= 8 else {
            throw fieldError(.truncated)
        }
        let offset = index
        index += 8
        return bytes.withUnsafeBytes { raw in
            // Safe: `offset + 8 <= end <= raw.count`.
            UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
    }

    /// Reads `count` bytes, already checked to lie inside the message, through `body`.
    @inline(__always)
    mutating func withRawBytes<Result>(
        count: Int,
        _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        let range = index..<(index + count)
        index += count
        return try bytes.withUnsafeBufferPointer { buffer in
            // Safe: callers got `count` from `readLength`, which keeps it within `end`.
            try body(UnsafeBufferPointer(rebasing: buffer[range]))
        }
    }
}
