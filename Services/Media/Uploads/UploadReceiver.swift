import Contracts
import CryptoCore
import Foundation
import Postgres
import RPC
import Runtime

/// Receives one Upload stream: checks each chunk against the declared size and the kind's limit,
/// sniffs the type from the first bytes, hashes as it goes, and turns the complete upload into a
/// blob. Bad content removes the upload (nothing visible remains); a stream that ends early or
/// breaks keeps the bytes so far, durably, for a resume.
struct UploadReceiver: Sendable {
    let pool: PostgresPool
    let storage: any BlobStorage

    /// How long a stream may hold an upload's writer lease.
    static let leaseSeconds = 120
    /// Bytes kept from the start of the file for the type and dimension checks.
    static let headLength = 256 << 10

    func receive(_ requests: RequestStream<Media.UploadChunk>, owner: UUID, app: String) async throws -> Media.Blob {
        var iterator = requests.makeAsyncIterator()
        guard let first = try await iterator.next() else { throw MediaError.invalidUploadID }
        guard let id = UUID(uuidString: first.uploadID) else { throw MediaError.invalidUploadID }
        let upload = try await pool.withConnection { connection in
            try await BlobStore.upload(id, owner: owner, app: app, on: connection)
        }
        guard let upload else { throw MediaError.uploadNotFound }
        if let blobID = upload.blobID {
            guard let blob = try await pool.withConnection({ try await BlobStore.blob(blobID, on: $0) }) else {
                throw MediaError.uploadNotFound
            }
            try await checkRetry(of: upload, sha256: blob.sha256, first: first, rest: &iterator)
            return blob.message
        }
        guard try await pool.withConnection({ try await BlobStore.lease(id, seconds: Self.leaseSeconds, on: $0) }) else {
            throw MediaError.uploadBusy
        }
        do {
            let blob = try await write(upload, first: first, rest: &iterator, owner: owner, app: app)
            return blob.message
        } catch let error as MediaError {
            switch error {
            case .incompleteUpload, .wrongOffset:
                await Self.uncancelled { try await pool.withConnection { try await BlobStore.release(id, on: $0) } }
            default:
                // The content is wrong: nothing of it stays.
                await Self.uncancelled {
                    try await storage.deletePart(id)
                    try await pool.withConnection { try await BlobStore.deleteUpload(id, on: $0) }
                }
            }
            throw error
        } catch {
            // A broken stream (often a cancelled call): the lease goes so that a resume can start.
            await Self.uncancelled { try await pool.withConnection { try await BlobStore.release(id, on: $0) } }
            throw error
        }
    }

    private func write(_ upload: BlobStore.Upload, first: Media.UploadChunk,
                       rest iterator: inout RequestStream<Media.UploadChunk>.AsyncIterator,
                       owner: UUID, app: String) async throws -> BlobRecord {
        guard let policy = BlobKindPolicy.of(upload.kind), let declared = MediaType(rawValue: upload.contentType) else {
            throw MediaError.invalidKind
        }
        var received = try await storage.partLength(upload.id)
        guard first.offset == received else { throw MediaError.wrongOffset(received: received) }
        let hasher = try SHA256Hasher()
        var head: [UInt8] = []
        if received > 0 {
            let part = try await storage.readPart(upload.id)
            try hasher.update(part)
            head = Array(part.prefix(Self.headLength))
            received = Int64(part.count)
        }
        var typeChecked = false
        let writer = try await storage.openPart(upload.id)
        do {
            var chunk: Media.UploadChunk? = first
            while let current = chunk {
                let data = current.data
                if !data.isEmpty {
                    guard received + Int64(data.count) <= upload.size else {
                        throw MediaError.tooLarge(limit: min(upload.size, policy.maximumSize))
                    }
                    if head.count < Self.headLength { head += data.prefix(Self.headLength - head.count) }
                    if !typeChecked, head.count >= MediaType.sniffLength || received + Int64(data.count) == upload.size {
                        try Self.checkType(head, declared: declared)
                        typeChecked = true
                    }
                    try await writer.append(data)
                    try hasher.update(data)
                    received += Int64(data.count)
                }
                chunk = try await iterator.next()
            }
        } catch {
            await Self.uncancelled { try await writer.close() }
            throw error
        }
        try await writer.close()
        guard received == upload.size else { throw MediaError.incompleteUpload(received: received) }
        try Self.checkType(head, declared: declared)
        var dimensions: ImageDimensions?
        if declared.isImage {
            guard let found = ImageDimensions.read(declared, head) else { throw MediaError.invalidImage }
            try found.checkDecodable()
            dimensions = found
        }
        let sha256 = try hasher.finalize().map { String(format: "%02x", $0) }.joined()
        return try await pool.withTransaction { connection in
            try await BlobStore.lockContent(sha256, on: connection)
            try await storage.commitPart(upload.id, sha256: sha256)
            let blob = try await BlobStore.insertBlob(id: UUID.random(), upload: upload, app: app, owner: owner, sha256: sha256,
                                                      dimensions: dimensions, on: connection)
            if blob.kind == .photo { try await RenditionStore.request(sha256, contentType: blob.contentType, on: connection) }
            return blob
        }
    }

    /// A stream to an upload that is already a blob changes nothing: only a retry of a stream
    /// whose answer was lost — the blob's own bytes from an offset to its end, or no bytes at
    /// offset = size — gets the blob again. Bytes past the size are TOO_LARGE; other bytes, or a
    /// stream that stops short, UPLOAD_COMPLETE.
    private func checkRetry(of upload: BlobStore.Upload, sha256: String, first: Media.UploadChunk,
                            rest iterator: inout RequestStream<Media.UploadChunk>.AsyncIterator) async throws {
        guard (0...upload.size).contains(first.offset) else { throw MediaError.uploadComplete(size: upload.size) }
        var position = first.offset
        var chunk: Media.UploadChunk? = first
        while let current = chunk {
            let data = current.data
            if !data.isEmpty {
                guard position + Int64(data.count) <= upload.size else { throw MediaError.tooLarge(limit: upload.size) }
                let stored = try await storage.read(sha256: sha256, range: position..<(position + Int64(data.count)))
                guard stored == data else { throw MediaError.uploadComplete(size: upload.size) }
                position += Int64(data.count)
            }
            chunk = try await iterator.next()
        }
        guard position == upload.size else { throw MediaError.uploadComplete(size: upload.size) }
    }

    /// Runs clean-up to its end even when the call was cancelled (a dropped connection cancels
    /// the handler, and cancelled work would skip the fsync, the close and the lease's release).
    private static func uncancelled(_ work: @escaping @Sendable () async throws -> Void) async {
        await Task { try? await work() }.value
    }

    private static func checkType(_ head: [UInt8], declared: MediaType) throws {
        let detected = MediaType.detect(head[...])
        guard detected == declared else {
            throw MediaError.typeMismatch(declared: declared.rawValue, detected: detected?.rawValue ?? "unknown")
        }
    }
}
