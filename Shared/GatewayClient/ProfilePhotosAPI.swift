public import ContractTypes
public import RPCCore

extension GatewayClient {
    /// Each account's ordered profile photos (`rendezvous.media.v1.ProfilePhotos`).
    public var profilePhotos: ProfilePhotosAPI { ProfilePhotosAPI(runner: runner) }
}

/// An account's profile photos as an app calls them, always as the signed-in account: anyone in
/// the same app reads a set, only its owner changes it. The app's limits come back with every
/// set (`minimum`, `maximum`); refusals carry media.proto's reasons (`error.mediaReason`):
/// `PHOTO_LIMIT_REACHED`, `PHOTO_REQUIRED`, `INVALID_ORDER`, `BLOB_NOT_FOUND`...
public struct ProfilePhotosAPI: Sendable {
    let runner: CallRunner

    /// Every ProfilePhotos method the client calls, with its retry and authentication rules.
    enum Methods {
        static let getPhotoSet = GatewayMethod("ProfilePhotos/GetPhotoSet", .read, .session)
        /// Adding a photo already in the set changes nothing.
        static let addPhoto = GatewayMethod("ProfilePhotos/AddPhoto", .idempotentWrite, .session)
        /// Removing a photo no longer in the set changes nothing.
        static let removePhoto = GatewayMethod("ProfilePhotos/RemovePhoto", .idempotentWrite, .session)
        /// Sets the whole order: the same order again is the same set.
        static let reorderPhotos = GatewayMethod("ProfilePhotos/ReorderPhotos", .idempotentWrite, .session)
    }

    private var stub: ProfilePhotosClient { ProfilePhotosClient(client: runner.transport) }

    /// An account's set in display order (the first is the main photo); the caller's own when
    /// `accountID` is empty. Each photo carries signed URLs of its rendition and thumbnails.
    public func photoSet(of accountID: String = "", deadline: Duration? = nil) async throws(GatewayError) -> ProfilePhotos.PhotoSet {
        try await runner.run(Methods.getPhotoSet, deadline: deadline) { [stub] options in
            try await stub.getPhotoSet(.init(accountID: accountID), options: options)
        }
    }

    /// Adds one of the caller's uploaded PHOTO blobs at `position` (1-based; 0 or beyond the end
    /// appends).
    public func add(_ blobID: String, position: Int32 = 0, deadline: Duration? = nil) async throws(GatewayError)
        -> ProfilePhotos.PhotoSet {
        try await runner.run(Methods.addPhoto, deadline: deadline) { [stub] options in
            try await stub.addPhoto(.init(blobID: blobID, position: position), options: options)
        }
    }

    public func remove(_ blobID: String, deadline: Duration? = nil) async throws(GatewayError) -> ProfilePhotos.PhotoSet {
        try await runner.run(Methods.removePhoto, deadline: deadline) { [stub] options in
            try await stub.removePhoto(.init(blobID: blobID), options: options)
        }
    }

    /// Puts the set in `blobIDs`' order, which must name exactly the set's photos.
    public func reorder(_ blobIDs: [String], deadline: Duration? = nil) async throws(GatewayError) -> ProfilePhotos.PhotoSet {
        try await runner.run(Methods.reorderPhotos, deadline: deadline) { [stub] options in
            try await stub.reorderPhotos(.init(blobIDs: blobIDs), options: options)
        }
    }
}
