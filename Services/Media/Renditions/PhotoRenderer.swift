internal import CVips
import Foundation

/// Makes what is served for a photo from its uploaded bytes, with libvips: the full-size
/// rendition and the thumbnails, each shrunk (never enlarged) to its long side, the EXIF
/// orientation applied, converted to sRGB when the photo embeds a colour profile, and saved
/// without any metadata (the EXIF with its GPS position, XMP, IPTC, comments, the profile).
/// Blocking and CPU-bound: callers run it on the renditions' own threads.
enum PhotoRenderer {
    /// One rendition's bytes.
    struct Output: Sendable {
        /// The variant: 0 for full size, else the thumbnail's long side.
        var side: Int32
        var bytes: [UInt8]
        var contentType: MediaType
        var width: Int32
        var height: Int32
    }

    /// Long side of the full-size rendition: a bound on the memory a rotation needs.
    static let fullSide: Int32 = 4096
    /// Long sides of the thumbnails, smallest first.
    static let thumbnailSides: [Int32] = [320, 1080]
    static let fullQuality: Int32 = 85
    static let thumbnailQuality: Int32 = 82

    /// Every rendition of `bytes` (an upload of `type`): full size first, then the thumbnails.
    static func render(_ bytes: [UInt8], type: MediaType) throws(RenditionFailure) -> [Output] {
        try VipsLibrary.start()
        // A render's buffers (tens of MB for a rotated 12 MP photo) are above what glibc gives
        // back by itself: returned to the system after each render, so RSS follows the work.
        defer { cvips_release_memory() }
        let result: Result<[Output], RenditionFailure> = bytes.withUnsafeBytes { buffer in
            // Safe: the buffer outlives every image made from it (each is released before return).
            guard let base = buffer.baseAddress, buffer.count > 0 else { return .failure(.unreadable("no bytes")) }
            do throws(RenditionFailure) {
                let embedsProfile = try checkHeader(base, buffer.count)
                var outputs: [Output] = []
                for side in [0] + thumbnailSides {
                    outputs.append(try render(base, buffer.count, side: side, fullType: type == .png ? .png : .jpeg,
                                              toSRGB: embedsProfile))
                }
                return .success(outputs)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads the header only and applies the upload's decompression-bomb rule to what libvips
    /// will decode, before any pixel is. Returns whether the image embeds a colour profile: only
    /// then are its renditions' pixels converted to sRGB.
    private static func checkHeader(_ base: UnsafeRawPointer, _ count: Int) throws(RenditionFailure) -> Bool {
        guard let header = cvips_header(base, count) else { throw .unreadable(VipsLibrary.takeError()) }
        let dimensions = ImageDimensions(width: Int(vips_image_get_width(header)), height: Int(vips_image_get_height(header)))
        let embedsProfile = cvips_has_profile(header) != 0
        cvips_unref(header)
        do {
            try dimensions.checkDecodable()
        } catch {
            throw .tooLarge(width: dimensions.width, height: dimensions.height)
        }
        return embedsProfile
    }

    private static func render(_ base: UnsafeRawPointer, _ count: Int, side: Int32, fullType: MediaType,
                               toSRGB: Bool) throws(RenditionFailure) -> Output {
        var image: UnsafeMutablePointer<VipsImage>?
        guard cvips_thumbnail(base, count, side == 0 ? fullSide : side, toSRGB ? 1 : 0, &image) == 0,
              var current = image else {
            throw .unreadable(VipsLibrary.takeError())
        }
        defer { cvips_unref(current) }
        let type: MediaType = side == 0 ? fullType : .jpeg
        if type == .jpeg, vips_image_hasalpha(current) != 0 {
            var flat: UnsafeMutablePointer<VipsImage>?
            guard cvips_flatten_white(current, &flat) == 0, let flat else { throw .unreadable(VipsLibrary.takeError()) }
            cvips_unref(current)
            current = flat
        }
        var data: UnsafeMutableRawPointer?
        var length = 0
        let saved = type == .png ? cvips_pngsave(current, &data, &length)
            : cvips_jpegsave(current, side == 0 ? fullQuality : thumbnailQuality, &data, &length)
        guard saved == 0, let data else { throw .unreadable(VipsLibrary.takeError()) }
        defer { cvips_free(data) }
        // Safe: libvips wrote `length` bytes at `data`, which stays ours until cvips_free.
        let bytes = Array(UnsafeRawBufferPointer(start: data, count: length))
        return Output(side: side, bytes: bytes, contentType: type, width: vips_image_get_width(current),
                      height: vips_image_get_height(current))
    }
}

/// Why a photo has no renditions: the bytes do not decode, or decode to too many pixels.
enum RenditionFailure: Error, Equatable, CustomStringConvertible {
    case unreadable(String)
    case tooLarge(width: Int, height: Int)

    var description: String {
        switch self {
        case .unreadable(let detail): "unreadable image: \(detail)"
        case .tooLarge(let width, let height): "image too large to decode: \(width)x\(height)"
        }
    }
}
