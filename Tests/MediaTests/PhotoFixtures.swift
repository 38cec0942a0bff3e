import CVips
import Foundation

/// Real, decodable photos made with libvips (a smooth gradient, so that encoders behave as on a
/// photo), and the EXIF a phone writes into one: the orientation and where it was taken.
enum PhotoFixtures {
    /// Where the fixtures' EXIF and XMP say the photo was taken.
    static let latitudeText = "48 deg 51' 29.6\" N"
    static let xmpMarker = "exif:GPSLatitude=\"48,51.4933N\""

    /// A `width`×`height` RGB (or RGBA) image encoded as `type` ("jpeg", "png" or "heic").
    static func image(width: Int, height: Int, type: String, alpha: Bool = false, seed: Int = 0) throws -> [UInt8] {
        let bands = alpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * bands)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * bands
                pixels[index] = UInt8(truncatingIfNeeded: x * 255 / max(1, width - 1) &+ seed)
                pixels[index + 1] = UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1))
                pixels[index + 2] = UInt8(truncatingIfNeeded: (x ^ y) &+ seed &* 7)
                if alpha { pixels[index + 3] = UInt8(truncatingIfNeeded: 128 + x % 128) }
            }
        }
        // The seed's bytes in the first pixels: every seed makes other bytes (a new content).
        for index in 0..<min(8, width * height) { pixels[index * bands] = UInt8(truncatingIfNeeded: seed >> (index * 8)) }
        return try encode(pixels, width: width, height: height, bands: bands, type: type)
    }

    /// A `width`×`height` image of one sRGB colour, encoded as `type`, but for its first row,
    /// which carries `seed`'s bytes (a new content for each seed).
    static func solid(width: Int, height: Int, red: UInt8, green: UInt8, blue: UInt8, type: String, seed: Int) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for index in 0..<(width * height) { pixels.replaceSubrange((index * 3)..<(index * 3 + 3), with: [red, green, blue]) }
        for index in 0..<min(8, width) { pixels[index * 3] = UInt8(truncatingIfNeeded: seed >> (index * 8)) }
        return try encode(pixels, width: width, height: height, bands: 3, type: type)
    }

    /// `image` (a file libvips reads) as a JPEG whose pixels are in Display P3 and which embeds
    /// that profile, as a recent phone saves a photo: made with the `vips` command.
    static func inDisplayP3(_ image: [UInt8]) throws -> [UInt8] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rv-p3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.png").path, output = folder.appendingPathComponent("out.jpg").path
        try Data(image).write(to: URL(fileURLWithPath: input))
        let vips = Process()
        vips.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        vips.arguments = ["vips", "icc_transform", input, "\(output)[Q=95]", "p3", "--input-profile", "srgb"]
        try vips.run()
        vips.waitUntilExit()
        guard vips.terminationStatus == 0, let bytes = FileManager.default.contents(atPath: output) else {
            throw FixtureError(message: "vips icc_transform failed (\(vips.terminationStatus))")
        }
        return Array(bytes)
    }

    /// The pixel at the centre of `bytes` (any format libvips reads), one value per band.
    static func centrePixel(_ bytes: [UInt8]) throws -> [UInt8] {
        guard vips_init("media-tests") == 0 else { throw FixtureError(message: "libvips failed to start") }
        let image = bytes.withUnsafeBytes { cvips_header($0.baseAddress, $0.count) }
        guard let image else { throw FixtureError(message: "not an image: \(String(cString: vips_error_buffer()))") }
        defer { cvips_unref(image) }
        let width = Int(vips_image_get_width(image)), height = Int(vips_image_get_height(image))
        let bands = Int(vips_image_get_bands(image))
        guard vips_image_get_format(image) == VIPS_FORMAT_UCHAR else { throw FixtureError(message: "not 8-bit") }
        var size = 0
        guard let pixels = vips_image_write_to_memory(image, &size) else { throw FixtureError(message: "decoding failed") }
        defer { g_free(pixels) }
        let start = ((height / 2) * width + width / 2) * bands
        return Array(UnsafeRawBufferPointer(start: pixels, count: size)[start..<(start + bands)])
    }

    private static func encode(_ pixels: [UInt8], width: Int, height: Int, bands: Int, type: String) throws -> [UInt8] {
        guard vips_init("media-tests") == 0 else { throw FixtureError(message: "libvips failed to start") }
        let image = pixels.withUnsafeBytes { buffer in
            vips_image_new_from_memory_copy(buffer.baseAddress, buffer.count, Int32(width), Int32(height), Int32(bands),
                                            VIPS_FORMAT_UCHAR)
        }
        guard let image else { throw FixtureError(message: "vips_image_new_from_memory_copy failed") }
        defer { cvips_unref(image) }
        var data: UnsafeMutableRawPointer?
        var length = 0
        let result = switch type {
        case "png": cvips_pngsave(image, &data, &length)
        case "heic": cvips_heifsave(image, 60, &data, &length)
        default: cvips_jpegsave(image, 92, &data, &length)
        }
        guard result == 0, let data else { throw FixtureError(message: "saving \(type) failed: \(String(cString: vips_error_buffer()))") }
        defer { cvips_free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }

    /// `jpeg` with an Exif APP1 (orientation `orientation`, a GPS position) and an XMP APP1
    /// (the position again) right after SOI, as a phone's camera writes them.
    static func withLocation(_ jpeg: [UInt8], orientation: UInt16 = 6) -> [UInt8] {
        precondition(jpeg.starts(with: [0xFF, 0xD8]))
        return [0xFF, 0xD8] + segment(0xE1, Array("Exif".utf8) + [0, 0] + tiff(orientation: orientation))
            + segment(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(xmp.utf8)) + jpeg.dropFirst(2)
    }

    private static let xmp = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
        <rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" \(xmpMarker) exif:GPSLongitude="2,17.6350E"/>\
        </rdf:RDF></x:xmpmeta>
        """

    /// A big-endian TIFF (Exif 2.3 §4.6): IFD0 with Orientation and a GPS IFD pointer, the GPS
    /// IFD with latitude and longitude as degrees, minutes, seconds.
    private static func tiff(orientation: UInt16) -> [UInt8] {
        // Offsets from the TIFF header: IFD0 at 8 (2 entries: 2 + 24 + 4 = 30 bytes), GPS IFD at
        // 38 (4 entries: 2 + 48 + 4 = 54 bytes), then the two rationals' triples at 92 and 116.
        var bytes: [UInt8] = Array("MM".utf8) + be16(42) + be32(8)
        bytes += be16(2)
        bytes += be16(0x0112) + be16(3) + be32(1) + be16(orientation) + be16(0)
        bytes += be16(0x8825) + be16(4) + be32(1) + be32(38)
        bytes += be32(0)
        bytes += be16(4)
        bytes += be16(0x0001) + be16(2) + be32(2) + Array("N".utf8) + [0, 0, 0]
        bytes += be16(0x0002) + be16(5) + be32(3) + be32(92)
        bytes += be16(0x0003) + be16(2) + be32(2) + Array("E".utf8) + [0, 0, 0]
        bytes += be16(0x0004) + be16(5) + be32(3) + be32(116)
        bytes += be32(0)
        for value in [(48, 1), (51, 1), (296, 10), (2, 1), (17, 1), (381, 10)] as [(UInt32, UInt32)] {
            bytes += be32(value.0) + be32(value.1)
        }
        return bytes
    }

    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(UInt16(payload.count + 2)) + payload
    }

    private static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    private static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(truncatingIfNeeded: value)] }
}

struct FixtureError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
