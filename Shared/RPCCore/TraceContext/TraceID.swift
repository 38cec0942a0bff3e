/// A W3C Trace Context trace id: 16 bytes, never all zero on the wire.
package struct TraceID: Sendable, Hashable {
    /// The first 8 bytes, big-endian.
    package var high: UInt64
    /// The last 8 bytes, big-endian.
    package var low: UInt64

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Whether every byte is zero, which W3C Trace Context forbids.
    package var isZero: Bool { high == 0 && low == 0 }

    /// The 16 bytes, as OTLP carries them.
    package var bytes: [UInt8] { HexID.bytes(high) + HexID.bytes(low) }

    /// 32 lowercase hex digits.
    package var hex: String {
        // One string written in place: two 16-digit halves concatenated cost three allocations
        // (every logged line inside a call names its trace).
        String(unsafeUninitializedCapacity: 32) { buffer in
            HexID.write(high, into: buffer, at: 0)
            HexID.write(low, into: buffer, at: 16)
            return 32
        }
    }

    /// Parses exactly 32 lowercase hex digits (zero included: the caller decides).
    package init?(hex: Substring.UTF8View) {
        guard hex.count == 32,
              let high = HexID.parse(hex.prefix(16)),
              let low = HexID.parse(hex.dropFirst(16)) else { return nil }
        self.init(high: high, low: low)
    }
}

/// A W3C Trace Context span (parent) id: 8 bytes, never all zero on the wire.
package struct SpanID: Sendable, Hashable {
    package var value: UInt64

    package init(_ value: UInt64) { self.value = value }

    /// The 8 bytes, as OTLP carries them.
    package var bytes: [UInt8] { HexID.bytes(value) }

    /// 16 lowercase hex digits.
    package var hex: String { HexID.hex(value) }

    /// Parses exactly 16 lowercase hex digits.
    package init?(hex: Substring.UTF8View) {
        guard hex.count == 16, let value = HexID.parse(hex) else { return nil }
        self.init(value)
    }
}

/// Lowercase hex for ids: the only form W3C Trace Context allows.
enum HexID {
    private static let digits = Array("0123456789abcdef".utf8)

    static func hex(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            write(value, into: buffer, at: 0)
            return 16
        }
    }

    /// The 16 digits of `value` into `buffer[offset..<offset + 16]`.
    static func write(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        for index in 0..<16 {
            // Safe: a nibble is 0...15, an index into the 16 digits.
            buffer[offset + index] = digits[Int((value >> UInt64(60 - 4 * index)) & 0xF)]
        }
    }

    static func bytes(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(56 - 8 * $0)) }
    }

    /// Lowercase hex only: uppercase digits make a `traceparent` invalid.
    static func parse(_ text: Substring.UTF8View) -> UInt64? {
        var value: UInt64 = 0
        for byte in text {
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(nibble)
        }
        return value
    }
}
