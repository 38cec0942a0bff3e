/// Reads what media served back: the JPEG's segments and frame size, the PNG's chunks, and
/// anything in either that could carry where a photo was taken.
enum ServedImage {
    /// The JPEG's marker segments before the scan (ITU T.81 §B.2), marker and payload.
    static func jpegSegments(_ bytes: [UInt8]) -> [(marker: UInt8, payload: ArraySlice<UInt8>)] {
        guard bytes.starts(with: [0xFF, 0xD8]) else { return [] }
        var segments: [(marker: UInt8, payload: ArraySlice<UInt8>)] = []
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { break }
            segments.append((marker, bytes[(index + 4)..<(index + 2 + length)]))
            if marker == 0xDA { break }
            index += 2 + length
        }
        return segments
    }

    /// Width and height from the JPEG's start-of-frame.
    static func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard let frame = jpegSegments(bytes).first(where: { (0xC0...0xC3).contains($0.marker) })?.payload,
              frame.count >= 5 else { return nil }
        let start = frame.startIndex
        return (Int(frame[start + 3]) << 8 | Int(frame[start + 4]), Int(frame[start + 1]) << 8 | Int(frame[start + 2]))
    }

    /// The PNG's chunk types in order.
    static func pngChunks(_ bytes: [UInt8]) -> [String] {
        var types: [String] = []
        var index = 8
        while index + 8 <= bytes.count {
            let length = Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            types.append(String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self))
            index += 12 + length
        }
        return types
    }

    /// A PNG's bytes without its IDAT chunks (the compressed pixels): signature, headers, text.
    static func pngBytesOutsidePixels(_ bytes: [UInt8]) -> [UInt8] {
        var kept = Array(bytes.prefix(8))
        var index = 8
        while index + 8 <= bytes.count {
            let length = Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            let end = min(bytes.count, index + 12 + length)
            if !bytes[(index + 4)..<(index + 8)].elementsEqual("IDAT".utf8) { kept += bytes[index..<end] }
            index = end
        }
        return kept
    }

    /// What in `bytes` could say where the photo was taken: EXIF (APP1 `Exif`), XMP (APP1),
    /// IPTC (APP13), comments, PNG text and eXIf chunks, or the fixtures' GPS text anywhere.
    static func locationCarriers(_ bytes: [UInt8]) -> [String] {
        var found: [String] = []
        let segments = jpegSegments(bytes)
        let isPNG = bytes.starts(with: [0x89, 0x50, 0x4E, 0x47])
        for segment in segments {
            switch segment.marker {
            case 0xE1: found.append(segment.payload.starts(with: Array("Exif".utf8)) ? "EXIF" : "APP1 (XMP)")
            case 0xED: found.append("APP13 (IPTC)")
            case 0xFE: found.append("comment")
            default: break
            }
        }
        if isPNG {
            found += pngChunks(bytes).filter { ["eXIf", "tEXt", "iTXt", "zTXt"].contains($0) }
        }
        // Outside the compressed pixels only (a JPEG's scan, a PNG's IDAT chunks), which may hold
        // any three bytes by chance.
        let head = isPNG ? pngBytesOutsidePixels(bytes)
            : segments.last.map { Array(bytes[..<$0.payload.endIndex]) } ?? bytes
        for text in ["GPS", PhotoFixtures.xmpMarker, "Exif\0\0"] where contains(head, Array(text.utf8)) {
            found.append("bytes \"\(text)\"")
        }
        return found
    }

    private static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, bytes.count >= needle.count else { return false }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if bytes[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }
}
