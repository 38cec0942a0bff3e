/// The content types media accepts, as sniffed from a file's first bytes.
enum MediaType: String, Sendable, CaseIterable {
    case jpeg = "image/jpeg"
    case png = "image/png"
    case heic = "image/heic"
    case mp4 = "video/mp4"

    /// Bytes `detect` needs to decide.
    static let sniffLength = 12

    /// The type `head` (a file's first bytes) starts like, if any of ours.
    static func detect(_ head: ArraySlice<UInt8>) -> MediaType? {
        let bytes = Array(head.prefix(sniffLength))
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        // ISO BMFF (ISO/IEC 14496-12 §4.3): a box `ftyp` first, whose major brand names the family.
        guard bytes.count >= 12, bytes[4...7].elementsEqual("ftyp".utf8) else { return nil }
        let brand = String(decoding: bytes[8...11], as: UTF8.self)
        if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].contains(brand) { return .heic }
        if ["isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "dash", "qt  "].contains(brand) { return .mp4 }
        return nil
    }

    var isImage: Bool { self != .mp4 }
}
