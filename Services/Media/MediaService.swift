import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.media.v1.Media`: uploads, blob metadata and signed download URLs. Rules are
/// documented in media.proto.
struct MediaService: MediaProvider {
    let pool: PostgresPool
    let storage: any BlobStorage
    let signer: URLSigner
    let settings: MediaSettings

    func createUpload(_ request: Media.CreateUploadRequest, context: ServerCallContext) async throws -> Media.UploadStatus {
        let caller = try context.requireAccount()
        let owner = try caller.accountUUID()
        guard let policy = BlobKindPolicy.of(request.kind) else { throw MediaError.invalidKind }
        guard let type = MediaType(rawValue: request.contentType.lowercased()), policy.types.contains(type) else {
            throw MediaError.unsupportedType(accepted: policy.types.map(\.rawValue).sorted().joined(separator: " or "))
        }
        guard request.size > 0 else { throw MediaError.invalidSize }
        guard request.size <= policy.maximumSize else { throw MediaError.tooLarge(limit: policy.maximumSize) }
        let upload = try await pool.withConnection { connection in
            try await BlobStore.createUpload(id: UUID.random(), app: caller.app, owner: owner, kind: request.kind,
                                             contentType: type.rawValue, size: request.size, on: connection)
        }
        return Self.status(upload, received: 0, blob: nil)
    }

    func upload(_ requests: RequestStream<Media.UploadChunk>, context: ServerCallContext) async throws -> Media.Blob {
        let caller = try context.requireAccount()
        let owner = try caller.accountUUID()
        return try await UploadReceiver(pool: pool, storage: storage).receive(requests, owner: owner, app: caller.app)
    }

    func getUpload(_ request: Media.GetUploadRequest, context: ServerCallContext) async throws -> Media.UploadStatus {
        let caller = try context.requireAccount()
        let owner = try caller.accountUUID()
        guard let id = UUID(uuidString: request.uploadID) else { throw MediaError.invalidUploadID }
        let (upload, blob) = try await pool.withConnection { connection -> (BlobStore.Upload?, BlobRecord?) in
            guard let upload = try await BlobStore.upload(id, owner: owner, app: caller.app, on: connection) else { return (nil, nil) }
            return (upload, try await upload.blobID.asyncMap { try await BlobStore.blob($0, on: connection) } ?? nil)
        }
        guard let upload else { throw MediaError.uploadNotFound }
        if let blob { return Self.status(upload, received: upload.size, blob: blob) }
        return Self.status(upload, received: try await storage.partLength(id), blob: nil)
    }

    func getBlob(_ request: Media.GetBlobRequest, context: ServerCallContext) async throws -> Media.Blob {
        let caller = try context.requireAccount()
        let blob = try await readable(request.blobID, by: caller, owner: try caller.accountUUID())
        return blob.message
    }

    func getDownloadURL(_ request: Media.GetDownloadURLRequest, context: ServerCallContext) async throws -> Media.DownloadURL {
        let caller = try context.requireAccount()
        guard (0...86_400).contains(request.ttlSeconds) else { throw MediaError.invalidTTL }
        let blob = try await readable(request.blobID, by: caller, owner: nil)
        let expires = Int64(Date().timeIntervalSince1970) + Int64(request.ttlSeconds == 0 ? 3_600 : request.ttlSeconds)
        var url = Media.DownloadURL(url: signer.sign(blob: blob.id, expires: expires), expiresAt: Timestamp(seconds: expires))
        if blob.kind == .photo {
            let status = try await pool.withConnection { try await RenditionStore.statuses([blob.sha256], on: $0)[blob.sha256] }
            guard status != .failed else { throw MediaError.imageUnreadable }
            url.thumbnails = signer.thumbnails(of: blob.id, expires: expires)
        }
        return url
    }

    /// Blob `text` if `caller` may see it: the caller's app only; private kinds only to the app's
    /// hosts (and, for metadata, the owner when `owner` is given).
    private func readable(_ text: String, by caller: AuthenticatedAccount, owner: UUID?) async throws -> BlobRecord {
        guard let id = UUID(uuidString: text) else { throw MediaError.invalidBlobID }
        guard let blob = try await pool.withConnection({ try await BlobStore.blob(id, on: $0) }), blob.app == caller.app else {
            throw MediaError.blobNotFound
        }
        if BlobKindPolicy.of(blob.kind)?.isPrivate ?? true, !settings.privateReaderRoles.contains(caller.role),
           blob.ownerID != owner {
            throw MediaError.privateBlob
        }
        // A Momento photo: its taker, or the event's members once it is revealed.
        if blob.kind == .photo, let visible = try await pool.withConnection({
            try await EventStore.eventPhotoVisible(id, to: try caller.accountUUID(), on: $0)
        }), !visible {
            throw MediaError.blobNotFound
        }
        return blob
    }

    private static func status(_ upload: BlobStore.Upload, received: Int64, blob: BlobRecord?) -> Media.UploadStatus {
        Media.UploadStatus(uploadID: upload.id.uuidString.lowercased(), kind: upload.kind, contentType: upload.contentType,
                           size: upload.size, receivedBytes: received, blob: blob?.message,
                           expiresAt: Timestamp(microseconds: upload.expiresAt))
    }
}

extension AuthenticatedAccount {
    /// The caller's account id; a token whose subject is not a UUID is refused.
    func accountUUID() throws(MediaError) -> UUID {
        guard let id = UUID(uuidString: accountID) else { throw .accountNotFound }
        return id
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
