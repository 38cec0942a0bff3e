/// Files whose headers are real (signatures, chunk and marker layout, box structure) around
/// filler bytes: media reads headers only, never pixels.
enum ImageFixtures {
    /// A PNG declaring `width`×`height`, `size` bytes long.
    static func png(width: UInt32 = 640, height: UInt32 = 480, size: Int = 4_000, seed: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += be32(13) + Array("IHDR".utf8) + be32(width) + be32(height) + [8, 6, 0, 0, 0] + be32(0)
        return padded(bytes, to: size, seed: seed)
    }

    /// A baseline JPEG declaring `width`×`height` (SOI, APP0 JFIF, SOF0, filler).
    static func jpeg(width: UInt16 = 1024, height: UInt16 = 768, size: Int = 6_000, seed: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes += [0xFF, 0xC0, 0x00, 0x11, 8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        bytes += [0xFF, 0xDA, 0x00, 0x0C, 3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3F, 0]
        return padded(bytes, to: size - 2, seed: seed) + [0xFF, 0xD9]
    }

    /// A HEIC: `ftyp heic`, then a `meta` box holding one `ispe` property of `width`×`height`.
    static func heic(width: UInt32 = 4032, height: UInt32 = 3024, size: Int = 8_000) -> [UInt8] {
        var bytes = be32(24) + Array("ftyp".utf8) + Array("heic".utf8) + be32(0) + Array("mif1".utf8) + Array("heic".utf8)
        let ispe = be32(20) + Array("ispe".utf8) + be32(0) + be32(width) + be32(height)
        let ipco = be32(UInt32(8 + ispe.count)) + Array("ipco".utf8) + ispe
        let iprp = be32(UInt32(8 + ipco.count)) + Array("iprp".utf8) + ipco
        bytes += be32(UInt32(12 + iprp.count)) + Array("meta".utf8) + be32(0) + iprp
        return padded(bytes, to: size, seed: 3)
    }

    /// An MP4: `ftyp isom`, then filler as `mdat`.
    static func mp4(size: Int = 50_000) -> [UInt8] {
        let bytes = be32(20) + Array("ftyp".utf8) + Array("isom".utf8) + be32(512) + Array("mp41".utf8)
            + be32(UInt32(size - 20)) + Array("mdat".utf8)
        return padded(bytes, to: size, seed: 5)
    }

    private static func padded(_ bytes: [UInt8], to size: Int, seed: UInt8) -> [UInt8] {
        var result = bytes
        var value = UInt32(seed) &+ 0x9E37_79B9
        while result.count < size {
            // xorshift: deterministic filler that does not compress to nothing.
            value ^= value << 13
            value ^= value >> 17
            value ^= value << 5
            result.append(UInt8(truncatingIfNeeded: value))
        }
        return result
    }

    private static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    private static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(truncatingIfNeeded: value)] }
}
