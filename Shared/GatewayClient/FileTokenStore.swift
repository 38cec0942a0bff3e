#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Foundation
import Synchronization

/// A token store in one JSON file, readable by its owner only (0600).
///
/// Saving writes a new file beside the old one and renames it over it, so a crash leaves the old
/// session or the new one, never half of either. A file that is not a session this store wrote
/// (truncated, edited, another format) reads as signed out. The folder must exist.
public final class FileTokenStore: TokenStore {
    /// The file's path.
    public let path: String
    private let lock = Mutex(())

    /// Larger files are not sessions: read as signed out instead of loaded into memory.
    static let maximumFileSize = 64 << 10
    static let formatVersion = 1

    public init(path: String) {
        self.path = path
    }

    public convenience init(url: URL) {
        self.init(path: url.path)
    }

    public func load() throws -> StoredSession? {
        try lock.withLock { _ in
            guard let data = try readFile() else { return nil }
            return Self.decode(data)
        }
    }

    public func save(_ session: StoredSession) throws {
        let data = try Self.encode(session)
        try lock.withLock { _ in try replaceFile(with: data) }
    }

    public func clear() throws {
        try lock.withLock { _ in
            guard unlink(path) == 0 || errno == ENOENT else { throw FileTokenStoreError("unlink", path: path) }
        }
    }

    // MARK: Format

    private struct FileContents: Codable {
        var version: Int
        var session: StoredSession
    }

    static func encode(_ session: StoredSession) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(FileContents(version: formatVersion, session: session))
    }

    /// The session in `data`; nil for anything else.
    static func decode(_ data: Data) -> StoredSession? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let contents = try? decoder.decode(FileContents.self, from: data),
              contents.version == formatVersion else { return nil }
        return contents.session
    }

    // MARK: Files

    /// The file's bytes; nil when there is no file or it is too large to be a session.
    private func readFile() throws -> Data? {
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
            if data.count > Self.maximumFileSize { return nil }
        }
    }

    /// Writes `data` to a new 0600 file beside `path`, flushes it, and renames it over `path`.
    private func replaceFile(with data: Data) throws {
        let temporary = "\(path).tmp-\(UUID().uuidString)"
        // O_EXCL: a fresh file with our mode, never someone else's file or a symlink.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileTokenStoreError("open", path: temporary) }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(fd) }
            try writeAll(data, to: fd, path: temporary)
            guard fsync(fd) == 0 else { throw FileTokenStoreError("fsync", path: temporary) }
        }
        guard rename(temporary, path) == 0 else { throw FileTokenStoreError("rename", path: path) }
        renamed = true
    }

    private func writeAll(_ data: Data, to fd: Int32, path: String) throws {
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                // Safe: offset < buffer.count, so the base address is non-nil and in bounds.
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw FileTokenStoreError("write", path: path)
                }
                offset += written
            }
        }
    }
}

/// A file operation of `FileTokenStore` failed; names the operation, the path and the system error.
public struct FileTokenStoreError: Error, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var code: Int32

    init(_ operation: String, path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(code)))"
    }
}
