/// A real, decodable PNG (RFC 2083) made without any library: 1-bit greyscale stripes in
/// stored (uncompressed) deflate blocks, padded to an exact size with a private ancillary chunk
/// that decoders skip. For tests whose photos must decode (media renders every photo it serves).
package enum RealPNG {
    /// A `width`×`height` PNG exactly `size` bytes long (at least its pixels' size plus ~80 bytes);
    /// `seed` changes the bytes (so that each test's photo is a new content).
    package static func make(width: Int, height: Int, size: Int? = nil, seed: Int = 0) -> [UInt8] {
        let rowBytes = (width + 7) / 8
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (rowBytes + 1))
        for y in 0..<height {
            raw.append(0)
            for x in 0..<rowBytes { raw.append(UInt8(truncatingIfNeeded: (x + y / 4 + seed) % 3 == 0 ? 0xF0 : 0x0F)) }
        }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [1, 0, 0, 0, 0])
        bytes += chunk("IDAT", zlibStored(raw))
        let mark = (0..<8).map { UInt8(truncatingIfNeeded: seed >> ($0 * 8)) }
        if let size {
            let padding = size - bytes.count - 12 - 12
            precondition(padding >= 0, "\(width)x\(height) does not fit in \(size) bytes")
            bytes += chunk("ruST", Array((mark + [UInt8](repeating: 0x55, count: max(0, padding - 8))).prefix(padding)))
        } else if seed != 0 {
            // The stripes alone take only three shapes per size: the seed's own bytes keep two
            // seeds apart (media keys renditions by content, across runs on one database).
            bytes += chunk("ruST", mark)
        }
        return bytes + chunk("IEND", [])
    }

    /// zlib (RFC 1950) around deflate stored blocks (RFC 1951 §3.2.4).
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var index = 0
        repeat {
            let count = min(65_535, data.count - index)
            let last: UInt8 = index + count == data.count ? 1 : 0
            out += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[index..<(index + count)]
            index += count
        } while index < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + be32(b << 16 | a)
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    private static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    /// The width and height a PNG's IHDR declares; nil when `bytes` is not a PNG.
    package static func dimensions(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), bytes[12..<16].elementsEqual("IHDR".utf8) else {
            return nil
        }
        func be(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        return (be(16), be(20))
    }
}
