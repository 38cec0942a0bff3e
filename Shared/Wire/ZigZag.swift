/// ZigZag encoding for sint32/sint64, mapping small magnitudes to small varints.
enum ZigZag {
    // `&<<` drops the sign bit by design and `0 &- x` is the two's complement mask 0 or ~0;
    // neither can overflow meaningfully, which is the whole point of the encoding.

    @inline(__always)
    static func encoded(_ value: Int32) -> UInt32 {
        UInt32(bitPattern: (value &<< 1) ^ (value >> 31))
    }

    @inline(__always)
    static func encoded(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value &<< 1) ^ (value >> 63))
    }

    @inline(__always)
    static func decoded(_ value: UInt32) -> Int32 {
        Int32(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
    }

    @inline(__always)
    static func decoded(_ value: UInt64) -> Int64 {
        Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
    }
}
