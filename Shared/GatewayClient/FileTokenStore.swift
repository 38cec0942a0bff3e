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
    private let file: PrivateFile
    private let lock = Mutex(())

    /// Larger files are not sessions: read as signed out instead of loaded into memory.
    static let maximumFileSize = 64 << 10
    static let formatVersion = 1

    public init(path: String) {
        self.path = path
        self.file = PrivateFile(path: path, maximumSize: Self.maximumFileSize)
    }

    public convenience init(url: URL) {
        self.init(path: url.path)
    }

    public func load() throws -> StoredSession? {
        try lock.withLock { _ in
            guard let data = try file.contents() else { return nil }
            return Self.decode(data)
        }
    }

    public func save(_ session: StoredSession) throws {
        let data = try Self.encode(session)
        try lock.withLock { _ in try file.replace(with: data) }
    }

    public func clear() throws {
        try lock.withLock { _ in try file.remove() }
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
}

/// A file operation of `FileTokenStore` or `FileOfflineQueueStore` failed; names the operation, the path and the system error.
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
