#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Runtime

/// Blobs as files under `root`: `blobs/ab/cd/<sha256>` (two levels of shards keep folders small),
/// unfinished uploads as `uploads/<id>.part`. A blob appears by renaming its fsynced part into
/// place and fsyncing the folder (POSIX rename is atomic), so a crash leaves either the whole
/// blob or none. File I/O runs on a few dedicated threads, never on Swift's cooperative pool.
struct LocalBlobStorage: BlobStorage {
    let root: String
    let io: BlockingWorkPool

    init(root: String, io: BlockingWorkPool) throws {
        self.root = root
        self.io = io
        try FileManager.default.createDirectory(atPath: root + "/blobs", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/uploads", withIntermediateDirectories: true)
    }

    func blobPath(_ sha256: String) -> String {
        let characters = Array(sha256)
        return "\(root)/blobs/\(String(characters[0..<2]))/\(String(characters[2..<4]))/\(sha256)"
    }

    func partPath(_ upload: UUID) -> String { "\(root)/uploads/\(upload.uuidString.lowercased()).part" }

    func partLength(_ upload: UUID) async throws -> Int64 {
        let path = partPath(upload)
        return try await io.run {
            var info = stat()
            guard stat(path, &info) == 0 else {
                if errno == ENOENT { return 0 }
                throw StorageError.io("stat", errno)
            }
            return Int64(info.st_size)
        }
    }

    func readPart(_ upload: UUID) async throws -> [UInt8] {
        let path = partPath(upload)
        return try await io.run { try Self.readFile(path, range: nil) ?? [] }
    }

    /// Bytes `range` of the part (fewer at its end), to copy a large part out in pieces.
    func readPart(_ upload: UUID, range: Range<Int64>) async throws -> [UInt8] {
        let path = partPath(upload)
        return try await io.run {
            guard let bytes = try Self.readFile(path, range: range) else { throw StorageError.missing }
            return bytes
        }
    }

    func openPart(_ upload: UUID) async throws -> any PartWriter {
        let path = partPath(upload)
        let fd = try await io.run {
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw StorageError.io("open", errno) }
            return fd
        }
        return LocalPartWriter(fd: fd, io: io)
    }

    func commitPart(_ upload: UUID, sha256: String) async throws {
        let source = partPath(upload)
        let target = blobPath(sha256)
        try await io.run {
            let folder = (target as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            if access(target, F_OK) == 0 {
                unlink(source)
                return
            }
            try Self.fsync(path: source, flags: O_RDONLY)
            guard rename(source, target) == 0 else { throw StorageError.io("rename", errno) }
            try Self.fsync(path: folder, flags: O_RDONLY | O_DIRECTORY)
        }
    }

    func deletePart(_ upload: UUID) async throws {
        let path = partPath(upload)
        try await io.run {
            guard unlink(path) == 0 || errno == ENOENT else { throw StorageError.io("unlink", errno) }
        }
    }

    func read(sha256: String, range: Range<Int64>?) async throws -> [UInt8] {
        let path = blobPath(sha256)
        return try await io.run {
            guard let bytes = try Self.readFile(path, range: range) else { throw StorageError.missing }
            return bytes
        }
    }

    func delete(sha256: String) async throws {
        let path = blobPath(sha256)
        try await io.run {
            guard unlink(path) == 0 || errno == ENOENT else { throw StorageError.io("unlink", errno) }
        }
    }

    /// The file's bytes in `range` (all when nil); nil when there is no such file.
    private static func readFile(_ path: String, range: Range<Int64>?) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw StorageError.io("open", errno)
        }
        defer { Glibc.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StorageError.io("fstat", errno) }
        let start = range?.lowerBound ?? 0
        let end = min(range?.upperBound ?? Int64(info.st_size), Int64(info.st_size))
        guard end > start else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(end - start))
        var filled = 0
        while filled < bytes.count {
            // Safe: the buffer holds bytes.count bytes and we read at most the rest of it.
            let count = bytes.withUnsafeMutableBytes { buffer in
                pread(fd, buffer.baseAddress! + filled, buffer.count - filled, off_t(start) + off_t(filled))
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw StorageError.io("pread", count < 0 ? errno : EIO) }
            filled += count
        }
        return bytes
    }

    private static func fsync(path: String, flags: Int32) throws {
        let fd = open(path, flags | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError.io("open", errno) }
        defer { Glibc.close(fd) }
        guard Glibc.fsync(fd) == 0 else { throw StorageError.io("fsync", errno) }
    }
}

/// An open part file; appends go through the storage's I/O threads.
final class LocalPartWriter: PartWriter, Sendable {
    let fd: Int32
    let io: BlockingWorkPool

    init(fd: Int32, io: BlockingWorkPool) {
        self.fd = fd
        self.io = io
    }

    func append(_ bytes: [UInt8]) async throws {
        let fd = self.fd
        try await io.run {
            var written = 0
            while written < bytes.count {
                // Safe: reads stay inside `bytes`.
                let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw StorageError.io("write", errno) }
                written += count
            }
        }
    }

    func close() async throws {
        let fd = self.fd
        try await io.run {
            defer { Glibc.close(fd) }
            guard fsync(fd) == 0 else { throw StorageError.io("fsync", errno) }
        }
    }
}

/// A storage failure; its description names the operation and errno, never a path.
enum StorageError: Error, CustomStringConvertible {
    case io(String, Int32)
    case missing

    var description: String {
        switch self {
        case .io(let operation, let code): "\(operation) failed: \(String(cString: strerror(code)))"
        case .missing: "blob bytes are missing"
        }
    }
}
