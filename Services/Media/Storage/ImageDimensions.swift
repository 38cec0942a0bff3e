/// Pixel dimensions read from an image's headers, never by decoding it: the decompression-bomb
/// guard checks them before anything else looks at the pixels.
struct ImageDimensions: Sendable, Equatable {
    var width: Int
    var height: Int

    var pixels: Int { width.multipliedReportingOverflow(by: height).overflow ? Int.max : width * height }

    /// The decompression-bomb rule, for uploads and for the renderer alike: decoding an image
    /// costs its pixels, so more than `BlobKindPolicy.maximumPixels` is refused before any are.
    func checkDecodable() throws(MediaError) {
        guard width > 0, height > 0 else { throw .invalidImage }
        guard pixels <= BlobKindPolicy.maximumPixels else { throw .imageTooLarge(width: width, height: height) }
    }

    /// The dimensions `head` (the file's first bytes) declares; nil when they are not in it.
    static func read(_ type: MediaType, _ head: [UInt8]) -> ImageDimensions? {
        switch type {
        case .png: png(head)
        case .jpeg: jpeg(head)
        case .heic: heic(head)
        case .mp4: nil
        }
    }

    /// PNG (RFC 2083 §11.2.2): IHDR is the first chunk; width and height are its first 8 bytes.
    static func png(_ bytes: [UInt8]) -> ImageDimensions? {
        guard bytes.count >= 24, bytes[12...15].elementsEqual("IHDR".utf8) else { return nil }
        return ImageDimensions(width: Int(bigEndian32(bytes, 16)), height: Int(bigEndian32(bytes, 20)))
    }

    /// JPEG (ITU T.81 §B.2): walk the marker segments to the first start-of-frame.
    static func jpeg(_ bytes: [UInt8]) -> ImageDimensions? {
        var index = 2
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF { index += 1; continue }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { index += 2; continue }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2 else { return nil }
            // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard index + 9 <= bytes.count else { return nil }
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return ImageDimensions(width: width, height: height)
            }
            if marker == 0xDA { return nil }
            index += 2 + length
        }
        return nil
    }

    /// HEIF (ISO/IEC 23008-12 §6.5.3): the largest `ispe` (image spatial extents) property.
    static func heic(_ bytes: [UInt8]) -> ImageDimensions? {
        var best: ImageDimensions?
        let tag = Array("ispe".utf8)
        var index = 4
        while index + 16 <= bytes.count {
            if bytes[index] == tag[0], bytes[index..<(index + 4)].elementsEqual(tag) {
                // Box type, then version and flags (4 bytes), then width and height.
                let found = ImageDimensions(width: Int(bigEndian32(bytes, index + 8)), height: Int(bigEndian32(bytes, index + 12)))
                if found.pixels > (best?.pixels ?? -1) { best = found }
                index += 16
            } else {
                index += 1
            }
        }
        return best
    }

    private static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
