import Foundation

/// Where blob bytes live: content-addressed blobs (by lowercase hex SHA-256) and the parts of
/// unfinished uploads (by upload id). The local filesystem is the default backend; another
/// (an S3-compatible store) is a configuration choice behind this protocol.
protocol BlobStorage: Sendable {
    /// Bytes of unfinished upload `upload` held so far (0 when there is no part).
    func partLength(_ upload: UUID) async throws -> Int64
    /// Every byte of the part, to re-hash it when an upload resumes.
    func readPart(_ upload: UUID) async throws -> [UInt8]
    /// Opens the part for appending (creating it).
    func openPart(_ upload: UUID) async throws -> any PartWriter
    /// Makes the complete part blob `sha256`, durably and atomically: the blob is either all
    /// there or not at all. When the blob exists already (same content), the part just goes.
    func commitPart(_ upload: UUID, sha256: String) async throws
    func deletePart(_ upload: UUID) async throws
    /// The blob's bytes in `range` (all of them when nil).
    func read(sha256: String, range: Range<Int64>?) async throws -> [UInt8]
    /// Removes the blob; no error when it is already gone.
    func delete(sha256: String) async throws
}

/// Appends to one upload's part; `close` makes what was written durable.
protocol PartWriter: Sendable {
    func append(_ bytes: [UInt8]) async throws
    /// Flushes to stable storage and releases the part.
    func close() async throws
}


