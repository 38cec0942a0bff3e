public import ContractTypes
public import RPCCore

extension GatewayClient {
    /// Uploads, blob metadata and signed downloads (`rendezvous.media.v1.Media`).
    public var media: MediaAPI { MediaAPI(runner: runner) }
}

/// How far an upload has come: bytes sent of the total, and which attempt is sending them
/// (an attempt after the first resumed where the server's bytes ended).
public struct UploadProgress: Sendable, Equatable {
    public var sentBytes: Int64
    public var totalBytes: Int64
    public var attempt: Int
}

/// The Media service as an app calls it, always as the signed-in account. Refusals carry
/// media.proto's reasons (`error.mediaReason`): `TYPE_MISMATCH`, `TOO_LARGE`, `PRIVATE_BLOB`...
public struct MediaAPI: Sendable {
    let runner: CallRunner

    /// Every Media method the client calls, with its retry and authentication rules.
    enum Methods {
        /// Not retried: a lost answer leaves an unused upload behind (it expires after a day).
        static let createUpload = GatewayMethod("Media/CreateUpload", .write, .session)
        /// Never repeated as such: `upload` resumes from what the server holds instead.
        static let upload = GatewayMethod("Media/Upload", .write, .session)
        static let getUpload = GatewayMethod("Media/GetUpload", .read, .session)
        static let getBlob = GatewayMethod("Media/GetBlob", .read, .session)
        /// A fresh URL each time; asking again is harmless.
        static let getDownloadURL = GatewayMethod("Media/GetDownloadURL", .idempotentWrite, .session)
    }

    private var stub: MediaClient { MediaClient(client: runner.transport) }

    /// Uploads `bytes` as a new blob of `kind` and `contentType` in chunks of `chunkSize`,
    /// reporting progress after every chunk. A dropped connection or an attempt that runs out of
    /// `deadline` does not start over: the upload resumes from the bytes the server holds, until
    /// attempts stop making progress (the retry policy's `maxAttempts` in a row).
    public func upload(_ bytes: [UInt8], kind: Media.BlobKind, contentType: String, chunkSize: Int = 256 << 10,
                       deadline: Duration? = nil,
                       progress: @escaping @Sendable (UploadProgress) -> Void = { _ in }) async throws(GatewayError) -> Media.Blob {
        let request = Media.CreateUploadRequest(kind: kind, contentType: contentType, size: Int64(bytes.count))
        let status = try await runner.run(Methods.createUpload, deadline: deadline) { [stub] options in
            try await stub.createUpload(request, options: options)
        }
        return try await resumeUpload(status.uploadID, bytes: bytes, chunkSize: chunkSize, deadline: deadline, progress: progress)
    }

    /// Continues upload `uploadID` (from `upload`'s progress, kept across an app restart) with
    /// the same `bytes`, from wherever the server's copy ends.
    public func resumeUpload(_ uploadID: String, bytes: [UInt8], chunkSize: Int = 256 << 10, deadline: Duration? = nil,
                             progress: @escaping @Sendable (UploadProgress) -> Void = { _ in }) async throws(GatewayError) -> Media.Blob {
        let chunk = max(1, min(chunkSize, 1 << 20))
        let total = Int64(bytes.count)
        var attempt = 0
        var stalled = 0
        var lastReceived: Int64 = -1
        while true {
            attempt += 1
            let status = try await runner.run(Methods.getUpload, deadline: deadline) { [stub] options in
                try await stub.getUpload(.init(uploadID: uploadID), options: options)
            }
            if let blob = status.blob {
                progress(UploadProgress(sentBytes: total, totalBytes: total, attempt: attempt))
                return blob
            }
            stalled = status.receivedBytes > lastReceived ? 0 : stalled + 1
            lastReceived = status.receivedBytes
            let offset = Int(status.receivedBytes)
            let currentAttempt = attempt
            do {
                return try await runner.run(Methods.upload, deadline: deadline) { [stub] options in
                    try await stub.upload(options: options) { call in
                        var position = offset
                        var first = true
                        repeat {
                            let end = min(position + chunk, bytes.count)
                            var message = Media.UploadChunk(data: Array(bytes[position..<end]))
                            if first {
                                message.uploadID = uploadID
                                message.offset = Int64(offset)
                                first = false
                            }
                            try await call.send(message)
                            position = end
                            progress(UploadProgress(sentBytes: Int64(position), totalBytes: total, attempt: currentAttempt))
                        } while position < bytes.count
                    }
                }
            } catch {
                guard Self.mayResume(after: error), stalled + 1 < runner.configuration.retryPolicy.maxAttempts else { throw error }
                do {
                    try await Task.sleep(for: runner.configuration.retryPolicy.backoff(afterAttempt: stalled + 1))
                } catch {
                    throw RPCError.gateway(error)
                }
            }
        }
    }

    /// A blob's metadata.
    public func blob(_ blobID: String, deadline: Duration? = nil) async throws(GatewayError) -> Media.Blob {
        try await runner.run(Methods.getBlob, deadline: deadline) { [stub] options in
            try await stub.getBlob(.init(blobID: blobID), options: options)
        }
    }

    /// A signed URL (path and query on the gateway's host) for a blob, valid `ttlSeconds` (0: an hour).
    public func downloadURL(_ blobID: String, ttlSeconds: Int32 = 0,
                            deadline: Duration? = nil) async throws(GatewayError) -> Media.DownloadURL {
        try await runner.run(Methods.getDownloadURL, deadline: deadline) { [stub] options in
            try await stub.getDownloadURL(.init(blobID: blobID, ttlSeconds: ttlSeconds), options: options)
        }
    }

    /// The bytes behind a signed URL (a blob's `DownloadURL.url`, a photo's `thumbnails[i].url`,
    /// or the `url` and `thumbnails` of a listed photo), by plain HTTP GET on the gateway's
    /// connection (no access token: the URL is the permission). A photo's renditions not made yet
    /// are waited for: the server holds the GET up to 10 s, then answers 503 with Retry-After,
    /// and the download asks again until `deadline`. 403 (expired or tampered) is
    /// PERMISSION_DENIED; a photo that cannot be decoded is FAILED_PRECONDITION IMAGE_UNREADABLE;
    /// other failures are UNAVAILABLE or NOT_FOUND.
    public func download(_ url: String, deadline: Duration? = nil) async throws(GatewayError) -> [UInt8] {
        let end = ContinuousClock.now + (deadline ?? runner.configuration.defaultDeadline)
        while true {
            let response: DownloadResponse
            do {
                response = try await runner.transport.download(url, timeout: end - ContinuousClock.now)
            } catch {
                throw RPCError.gateway(error)
            }
            switch response.status {
            case 200: return response.body
            case 403: throw RPCError(code: .permissionDenied, message: "the download URL is expired or not valid")
            case 404: throw RPCError(code: .notFound, message: "the file is gone")
            case 422:
                throw RPCError(code: .failedPrecondition, message: "the photo cannot be decoded as an image",
                               reason: Media.ErrorReason.imageUnreadable.name)
            case 503 where response.headers.contains { $0.name == "retry-after" }:
                let pause = Duration.seconds(Int(response.headers.first { $0.name == "retry-after" }?.value ?? "") ?? 1)
                guard ContinuousClock.now + pause < end else {
                    throw RPCError(code: .unavailable, message: "the photo is still being prepared")
                }
                do {
                    try await Task.sleep(for: pause)
                } catch {
                    throw RPCError.gateway(error)
                }
            default: throw RPCError(code: .unavailable, message: "the download failed with HTTP \(response.status)")
            }
        }
    }

    /// Whether an interrupted attempt is worth resuming from the server's bytes.
    static func mayResume(after error: RPCError) -> Bool {
        switch error.code {
        case .unavailable, .deadlineExceeded, .cancelled: return true
        case .aborted: return error.reason == Media.ErrorReason.uploadBusy.name
        case .failedPrecondition:
            return error.reason == Media.ErrorReason.incompleteUpload.name || error.reason == Media.ErrorReason.wrongOffset.name
        default: return false
        }
    }
}

extension RPCError {
    /// The Media reason of a failed call, to `switch` on; nil for another service's.
    public var mediaReason: Media.ErrorReason? { reason(as: Media.ErrorReason.self) }
}
