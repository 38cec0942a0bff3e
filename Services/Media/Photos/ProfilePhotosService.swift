import Auth
import Contracts
import Foundation
import Postgres
import RPC
import Runtime

/// `rendezvous.media.v1.ProfilePhotos`: ordered photo sets within the app's limits
/// (profile_photos.proto).
struct ProfilePhotosService: ProfilePhotosProvider {
    let pool: PostgresPool
    let signer: URLSigner
    let settings: MediaSettings
    /// GetPhotoSet's read, sent with other callers' (`BatchedReads`).
    let reads: BatchedReads

    func getPhotoSet(_ request: ProfilePhotos.GetPhotoSetRequest, context: ServerCallContext) async throws -> ProfilePhotos.PhotoSet {
        let caller = try context.requireAccount()
        var account = try caller.accountUUID()
        if !request.accountID.isEmpty {
            guard let id = UUID(uuidString: request.accountID) else { throw MediaError.invalidAccountID }
            account = id
        }
        // Another app's account has no set here (only blobs of the caller's app are listed).
        let photos = try PhotoSetStore.photos(try await reads.query(PhotoSetStore.photos(of: account, seenFrom: caller.app)))
        return set(of: account, app: caller.app, photos)
    }

    func addPhoto(_ request: ProfilePhotos.AddPhotoRequest, context: ServerCallContext) async throws -> ProfilePhotos.PhotoSet {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        guard let blobID = UUID(uuidString: request.blobID) else { throw MediaError.invalidBlobID }
        let limits = settings.photoLimits(app: caller.app)
        return try await change(account, app: caller.app) { ids, connection in
            guard let blob = try await BlobStore.blob(blobID, on: connection), blob.ownerID == account, blob.app == caller.app,
                  blob.kind == .photo else { throw MediaError.notAPhoto }
            guard !ids.contains(blobID) else { return ids }
            guard ids.count < Int(limits.maximum) else { throw MediaError.photoLimitReached(maximum: limits.maximum) }
            var next = ids
            let index = Int(request.position) - 1
            next.insert(blobID, at: (0..<ids.count).contains(index) ? index : ids.count)
            return next
        }
    }

    func removePhoto(_ request: ProfilePhotos.RemovePhotoRequest, context: ServerCallContext) async throws -> ProfilePhotos.PhotoSet {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        guard let blobID = UUID(uuidString: request.blobID) else { throw MediaError.invalidBlobID }
        let limits = settings.photoLimits(app: caller.app)
        return try await change(account, app: caller.app) { ids, connection in
            guard ids.contains(blobID) else { return ids }
            if ids.count <= Int(limits.minimum), try await PhotoSetStore.onboardingComplete(account, on: connection) {
                throw MediaError.photoRequired(minimum: limits.minimum)
            }
            return ids.filter { $0 != blobID }
        }
    }

    func reorderPhotos(_ request: ProfilePhotos.ReorderPhotosRequest, context: ServerCallContext) async throws -> ProfilePhotos.PhotoSet {
        let caller = try context.requireAccount()
        let account = try caller.accountUUID()
        let order = request.blobIDs.compactMap { UUID(uuidString: $0) }
        guard order.count == request.blobIDs.count, Set(order).count == order.count else { throw MediaError.invalidOrder }
        return try await change(account, app: caller.app) { ids, _ in
            guard Set(ids) == Set(order) else { throw MediaError.invalidOrder }
            return order
        }
    }

    /// Applies `transform` to the account's current order under its lock and stores the result.
    private func change(_ account: UUID, app: String,
                        _ transform: @escaping (_ ids: [UUID], Connection) async throws -> [UUID]) async throws -> ProfilePhotos.PhotoSet {
        let photos = try await pool.withTransaction { connection in
            try await PhotoSetStore.lock(account, on: connection)
            let current = try await PhotoSetStore.photos(of: account, on: connection).compactMap { UUID(uuidString: $0.blobID) }
            let next = try await transform(current, connection)
            if next != current { try await PhotoSetStore.write(next, of: account, on: connection) }
            return try await PhotoSetStore.photos(of: account, on: connection)
        }
        return set(of: account, app: app, photos)
    }

    private func set(of account: UUID, app: String, _ photos: [ProfilePhotos.ProfilePhoto]) -> ProfilePhotos.PhotoSet {
        let limits = settings.photoLimits(app: app)
        let linked = photos.map { photo in
            var photo = photo
            if let blob = UUID(uuidString: photo.blobID) {
                (photo.url, photo.thumbnails) = signer.photoLinks(blob: blob, status: photo.renditionStatus)
            }
            return photo
        }
        return ProfilePhotos.PhotoSet(accountID: account.uuidString.lowercased(), photos: linked, minimum: limits.minimum,
                                      maximum: limits.maximum)
    }
}
