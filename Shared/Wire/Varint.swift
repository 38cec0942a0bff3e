/// Base-128 varint helpers (protobuf encoding spec, "Base 128 Varints").
enum Varint {
    /// The longest a varint may be: ten bytes carry 64 bits.
    static let maxEncodedSize = 10

    /// The number of bytes `value` takes as a varint.
    @inline(__always)
    static func encodedSize(of value: UInt64) -> Int {
        // Each byte carries 7 bits; a zero still takes one byte.
        let bits = 64 - (value | 1).leadingZeroBitCount
        return (bits + 6) / 7
    }

    /// The number of bytes a sign-extended `Int32` takes (10 for negative values).
    @inline(__always)
    static func encodedSize(of value: Int32) -> Int {
        encodedSize(of: UInt64(bitPattern: Int64(value)))
    }
}
