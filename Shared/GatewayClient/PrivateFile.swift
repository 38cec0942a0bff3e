#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// One small file only its owner reads (0600), replaced whole: the session (`FileTokenStore`)
/// and the offline queue (`FileOfflineQueueStore`) are kept this way.
///
/// `replace` writes a new file beside the old one, flushes it and renames it over it, so a crash
/// leaves the old contents or the new, never half of either. The folder must exist.
struct PrivateFile: Sendable {
    let path: String
    /// Larger files are not ours: `contents` returns nil instead of loading them into memory.
    let maximumSize: Int

    /// The file's bytes; nil when there is no file or it is larger than `maximumSize`.
    func contents() throws(FileTokenStoreError) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw FileTokenStoreError("open", path: path)
        }
        defer { close(fd) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileTokenStoreError("read", path: path)
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[0..<count])
            if data.count > maximumSize { return nil }
        }
    }

    /// Writes `data` to a new 0600 file beside `path`, flushes it, and renames it over `path`.
    func replace(with data: Data) throws(FileTokenStoreError) {
        let temporary = "\(path).tmp-\(UUID().uuidString)"
        // O_EXCL: a fresh file with our mode, never someone else's file or a symlink.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileTokenStoreError("open", path: temporary) }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(fd) }
            try Self.writeAll(data, to: fd, path: temporary)
            guard fsync(fd) == 0 else { throw FileTokenStoreError("fsync", path: temporary) }
        }
        guard rename(temporary, path) == 0 else { throw FileTokenStoreError("rename", path: path) }
        renamed = true
    }

    /// Removes the file; no file is no error.
    func remove() throws(FileTokenStoreError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw FileTokenStoreError("unlink", path: path) }
    }

    private static func writeAll(_ data: Data, to fd: Int32, path: String) throws(FileTokenStoreError) {
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes { buffer in
                // Safe: offset < buffer.count, so the base address is non-nil and in bounds.
                write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw FileTokenStoreError("write", path: path)
            }
            offset += written
        }
    }
}
