/// Big-endian reads over a received cell. Every read checks the length first and returns nil
/// when the bytes run out, leaving the position unchanged; hostile input never traps.
struct ByteReader {
    private(set) var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    var isAtEnd: Bool { bytes.isEmpty }

    mutating func readInteger<T: FixedWidthInteger>(as: T.Type = T.self) -> T? {
        let size = MemoryLayout<T>.size
        guard bytes.count >= size else { return nil }
        var value: T = 0
        for byte in bytes.prefix(size) { value = value << 8 | T(truncatingIfNeeded: byte) }
        bytes = bytes.dropFirst(size)
        return value
    }

    mutating func readBytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, bytes.count >= count else { return nil }
        defer { bytes = bytes.dropFirst(count) }
        return bytes.prefix(count)
    }
}

extension Array where Element == UInt8 {
    mutating func writeInteger<T: FixedWidthInteger>(_ value: T) {
        var bigEndian = value.bigEndian
        Swift.withUnsafeBytes(of: &bigEndian) { append(contentsOf: $0) }
    }
}
