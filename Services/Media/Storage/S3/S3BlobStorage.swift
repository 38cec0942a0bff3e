import CryptoCore
import Foundation
import OutboundHTTP
import Runtime

/// Blobs as objects of an S3-compatible bucket under `blobs/ab/cd/<sha256>` (the local backend's
/// sharded layout), unfinished uploads as parts in a local staging folder. A part goes to the
/// bucket only once complete and checked: in one PUT up to the part size, else as a multipart
/// upload (aborted when any step fails). Staging keeps resumes exactly as the local backend has
/// them — the bytes so far re-hashed from disk, at any offset — which S3 itself cannot give: its
/// parts are at least 5 MiB (our chunks are 1 MiB, photos 2 MiB) and an unfinished multipart
/// upload's bytes cannot be read back. PUT carries the SHA-256 the upload computed as
/// x-amz-content-sha256, so the store checks the bytes it keeps.
struct S3BlobStorage: BlobStorage {
    let client: S3Client
    let staging: LocalBlobStorage

    init(settings: S3Settings, stagingRoot: String, io: BlockingWorkPool, http: BlockingWorkPool) throws {
        client = S3Client(settings: settings, http: http)
        staging = try LocalBlobStorage(root: stagingRoot, io: io)
    }

    /// The most a whole-object read may return (video selfies, the largest kind, are 32 MiB).
    static let largestRead = 64 << 20

    /// The object key of blob `sha256`.
    static func key(_ sha256: String) -> String {
        let characters = Array(sha256)
        return "blobs/\(String(characters[0..<2]))/\(String(characters[2..<4]))/\(sha256)"
    }

    func partLength(_ upload: UUID) async throws -> Int64 { try await staging.partLength(upload) }
    func readPart(_ upload: UUID) async throws -> [UInt8] { try await staging.readPart(upload) }
    func openPart(_ upload: UUID) async throws -> any PartWriter { try await staging.openPart(upload) }
    func deletePart(_ upload: UUID) async throws { try await staging.deletePart(upload) }

    func commitPart(_ upload: UUID, sha256: String) async throws {
        let key = Self.key(sha256)
        let existing = try await client.send(.init(operation: "HEAD object", method: "HEAD", key: key))
        if existing.status == 404 {
            let length = try await staging.partLength(upload)
            if length <= client.settings.partSize {
                let bytes = try await staging.readPart(upload)
                try await client.require(.init(operation: "PUT object", method: "PUT", key: key, body: bytes, payloadHash: sha256))
            } else {
                try await putMultipart(upload, key: key, length: length)
            }
        }
        try await staging.deletePart(upload)
    }

    /// CreateMultipartUpload, UploadPart for each slice of the staged part, CompleteMultipartUpload;
    /// AbortMultipartUpload when any of them fails, so no parts linger in the bucket.
    private func putMultipart(_ upload: UUID, key: String, length: Int64) async throws {
        let created = try await client.require(.init(operation: "CreateMultipartUpload", method: "POST", key: key,
                                                     query: [("uploads", "")]))
        guard let uploadID = S3XML.firstValue(of: "UploadId", in: created.body), !uploadID.isEmpty else {
            throw S3Error(kind: .malformed("no UploadId"), operation: "CreateMultipartUpload")
        }
        do {
            var etags: [String] = []
            var offset: Int64 = 0
            let partSize = Int64(client.settings.partSize)
            while offset < length {
                let bytes = try await staging.readPart(upload, range: offset..<min(length, offset + partSize))
                let number = etags.count + 1
                let answer = try await client.require(.init(
                    operation: "UploadPart", method: "PUT", key: key,
                    query: [("partNumber", String(number)), ("uploadId", uploadID)], body: bytes))
                guard let etag = answer.header("etag") else { throw S3Error(kind: .malformed("no ETag"), operation: "UploadPart") }
                etags.append(etag)
                offset += Int64(bytes.count)
            }
            let parts = etags.enumerated().map { index, etag in
                "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(S3XML.escape(etag))</ETag></Part>"
            }
            let document = "<CompleteMultipartUpload>\(parts.joined())</CompleteMultipartUpload>"
            let completed = try await client.require(.init(
                operation: "CompleteMultipartUpload", method: "POST", key: key, query: [("uploadId", uploadID)],
                body: Array(document.utf8)))
            // S3 may answer 200 and still fail the completion in the body.
            if let code = S3XML.firstValue(of: "Code", in: completed.body) {
                throw S3Error(kind: .rejected(status: 200, code: code), operation: "CompleteMultipartUpload")
            }
        } catch {
            let client = self.client
            // Best effort, to the end even when the call was cancelled: a lingering upload only
            // costs storage until the bucket's AbortIncompleteMultipartUpload rule removes it.
            await Task {
                _ = try? await client.send(.init(operation: "AbortMultipartUpload", method: "DELETE", key: key,
                                                 query: [("uploadId", uploadID)]))
            }.value
            throw error
        }
    }

    func read(sha256: String, range: Range<Int64>?) async throws -> [UInt8] {
        var call = S3Client.Call(operation: "GET object", method: "GET", key: Self.key(sha256))
        if let range {
            guard !range.isEmpty else { return [] }
            call.headers = [("range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")]
        }
        call.maximumResponseBody = range.map { Int($0.count) } ?? Self.largestRead
        let response = try await client.send(call)
        guard response.status != 404 else { throw StorageError.missing }
        return response.body
    }

    func delete(sha256: String) async throws {
        // 204 when deleted, 404 (some stores) when already gone: both fine.
        _ = try await client.send(.init(operation: "DELETE object", method: "DELETE", key: Self.key(sha256)))
    }

    /// Throws unless the bucket lists (one key at most): media's readiness check. A listing rather
    /// than HeadBucket because an error's code (SignatureDoesNotMatch, NoSuchBucket) comes in a
    /// body, and HEAD answers have none.
    func checkBucket() async throws {
        try await client.require(.init(operation: "ListObjectsV2", method: "GET", key: nil,
                                       query: [("list-type", "2"), ("max-keys", "1")]))
    }
}
