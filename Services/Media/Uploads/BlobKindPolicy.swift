import Contracts

/// What each kind of blob accepts: its types, its size limit, and whether it is private (only
/// the app's hosts may download it).
struct BlobKindPolicy: Sendable {
    var types: Set<MediaType>
    var maximumSize: Int64
    var isPrivate: Bool

    /// Most pixels an image may declare (the decompression-bomb guard): 50 megapixels.
    static let maximumPixels = 50_000_000

    static func of(_ kind: Media.BlobKind) -> BlobKindPolicy? {
        switch kind {
        case .photo: BlobKindPolicy(types: [.jpeg, .png, .heic], maximumSize: 2 << 20, isPrivate: false)
        case .consentSignature: BlobKindPolicy(types: [.png, .jpeg], maximumSize: 1 << 20, isPrivate: true)
        case .receipt: BlobKindPolicy(types: [.jpeg, .png, .heic], maximumSize: 4 << 20, isPrivate: true)
        case .videoSelfie: BlobKindPolicy(types: [.mp4], maximumSize: 32 << 20, isPrivate: true)
        default: nil
        }
    }
}
