import CVips
import Foundation
import TestSupport

/// A real, decodable JPEG made with libvips: a gradient, different bytes for every seed.
enum JPEGFixture {
    static func make(width: Int = 640, height: Int = 480, seed: Int = Int.random(in: 0..<Int.max)) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                pixels[index] = UInt8(truncatingIfNeeded: x * 255 / max(1, width - 1) &+ seed)
                pixels[index + 1] = UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1))
                pixels[index + 2] = UInt8(truncatingIfNeeded: (x ^ y) &+ seed &* 7)
            }
        }
        for index in 0..<8 { pixels[index * 3] = UInt8(truncatingIfNeeded: seed >> (index * 8)) }
        guard vips_init("cli-tests") == 0 else { throw SubprocessError(message: "libvips failed to start") }
        let image = pixels.withUnsafeBytes { buffer in
            vips_image_new_from_memory_copy(buffer.baseAddress, buffer.count, Int32(width), Int32(height), 3, VIPS_FORMAT_UCHAR)
        }
        guard let image else { throw SubprocessError(message: "vips_image_new_from_memory_copy failed") }
        defer { cvips_unref(image) }
        var data: UnsafeMutableRawPointer?
        var length = 0
        guard cvips_jpegsave(image, 90, &data, &length) == 0, let data else { throw SubprocessError(message: "jpegsave failed") }
        defer { cvips_free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }
}
