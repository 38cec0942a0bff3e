internal import CVips
import Foundation

/// libvips, started once per process: one worker thread per operation (the renditions' own
/// threads are the parallelism), no operation cache (every photo is seen once), and the
/// loaders libvips marks untrusted (ImageMagick and the like) blocked: only its own JPEG, PNG
/// and HEIF loaders ever parse an upload.
enum VipsLibrary {
    private static let started: Bool = {
        guard vips_init("media") == 0 else { return false }
        vips_concurrency_set(1)
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
        vips_block_untrusted_set(1)
        return true
    }()

    /// Starts libvips if it is not yet; throws when it cannot start.
    static func start() throws(RenditionFailure) {
        guard started else { throw .unreadable("libvips failed to start") }
    }

    /// libvips's error text since the last call (its buffer is per process), then clears it.
    static func takeError() -> String {
        let text = String(cString: vips_error_buffer()).trimmingCharacters(in: .whitespacesAndNewlines)
        vips_error_clear()
        return text.isEmpty ? "libvips failed" : String(text.prefix(300))
    }
}
