import Contracts
import RPC

/// Media's domain failures and the one place that decides their gRPC status and reason.
enum MediaError: Error, Sendable, Equatable, RPCErrorConvertible {
    case accountNotFound
    case invalidKind
    case invalidSize
    case tooLarge(limit: Int64)
    /// The types the kind accepts, as the message lists them (never the client's value, which
    /// may be any length).
    case unsupportedType(accepted: String)
    case typeMismatch(declared: String, detected: String)
    case imageTooLarge(width: Int, height: Int)
    case invalidImage
    case invalidUploadID
    case uploadNotFound
    case wrongOffset(received: Int64)
    case incompleteUpload(received: Int64)
    case uploadComplete(size: Int64)
    case uploadBusy
    case invalidBlobID
    case blobNotFound
    case privateBlob
    case invalidTTL
    case photoLimitReached(maximum: Int32)
    case photoRequired(minimum: Int32)
    case notAPhoto
    case invalidOrder
    case invalidAccountID
    case invalidEventID
    case eventNotFound
    case invalidJoinCode
    case joinCodeNotFound
    case invalidTitle
    case invalidReleaseTime
    case invalidPhotoLimit
    case invalidLocation
    case invalidDescription
    case eventPhotoLimitReached(limit: Int32)
    case notEventAdmin
    case photoNotFound
    case invalidPhotoID
    case invalidInviter
    case invalidRole
    case memberNotFound
    case invalidPageToken
    case invalidPageSize
    case imageUnreadable
    /// The blob store failed; `detail` says how, for operators (never a key, URL or credential).
    case storageUnavailable(detail: String)

    var rpcError: RPCError {
        switch self {
        case .accountNotFound:
            RPCError(Platform.ErrorReason.malformedToken, message: "the token's subject is not an account id")
        case .invalidKind:
            RPCError(Media.ErrorReason.invalidKind, message: "kind must be PHOTO, CONSENT_SIGNATURE, RECEIPT or VIDEO_SELFIE")
        case .invalidSize:
            RPCError(Media.ErrorReason.invalidSize, message: "size must be at least 1 byte")
        case .tooLarge(let limit):
            RPCError(Media.ErrorReason.tooLarge, message: "the upload is larger than allowed", details: ["limit": String(limit)])
        case .unsupportedType(let accepted):
            RPCError(Media.ErrorReason.unsupportedType, message: "content_type must be \(accepted) for this kind")
        case .typeMismatch(let declared, let detected):
            RPCError(Media.ErrorReason.typeMismatch, message: "the bytes are \(detected), not \(declared)",
                     details: ["declared": declared, "detected": detected])
        case .imageTooLarge(let width, let height):
            RPCError(Media.ErrorReason.imageTooLarge, message: "the image declares too many pixels",
                     details: ["width": String(width), "height": String(height)])
        case .invalidImage:
            RPCError(Media.ErrorReason.invalidImage, message: "the image's dimensions cannot be read")
        case .invalidUploadID:
            RPCError(Media.ErrorReason.invalidUploadID, message: "upload_id is not a UUID")
        case .uploadNotFound:
            RPCError(Media.ErrorReason.uploadNotFound, message: "no such upload")
        case .wrongOffset(let received):
            RPCError(Media.ErrorReason.wrongOffset, message: "the upload continues at byte \(received)",
                     details: ["received_bytes": String(received)])
        case .incompleteUpload(let received):
            RPCError(Media.ErrorReason.incompleteUpload, message: "the stream ended before the declared size",
                     details: ["received_bytes": String(received)])
        case .uploadComplete(let size):
            RPCError(Media.ErrorReason.uploadComplete, message: "the upload is complete; GetUpload returns its blob",
                     details: ["received_bytes": String(size)])
        case .uploadBusy:
            RPCError(Media.ErrorReason.uploadBusy, message: "another stream is writing this upload")
        case .invalidBlobID:
            RPCError(Media.ErrorReason.invalidBlobID, message: "blob_id is not a UUID")
        case .blobNotFound:
            RPCError(Media.ErrorReason.blobNotFound, message: "no such blob")
        case .privateBlob:
            RPCError(Media.ErrorReason.privateBlob, message: "this file is only for the app's hosts")
        case .invalidTTL:
            RPCError(Media.ErrorReason.invalidTtl, message: "ttl_seconds must be 0-86400")
        case .photoLimitReached(let maximum):
            RPCError(Media.ErrorReason.photoLimitReached, message: "a profile holds at most \(maximum) photos",
                     details: ["maximum": String(maximum)])
        case .photoRequired(let minimum):
            RPCError(Media.ErrorReason.photoRequired, message: "a profile keeps at least \(minimum) photo(s)",
                     details: ["minimum": String(minimum)])
        case .notAPhoto:
            RPCError(Media.ErrorReason.notAPhoto, message: "that is not one of your photos")
        case .invalidOrder:
            RPCError(Media.ErrorReason.invalidOrder, message: "blob_ids must list every photo of the set exactly once")
        case .invalidAccountID:
            RPCError(Media.ErrorReason.invalidAccountID, message: "account_id is not a UUID")
        case .invalidEventID:
            RPCError(Media.ErrorReason.invalidEventID, message: "event_id is not a UUID")
        case .eventNotFound:
            RPCError(Media.ErrorReason.eventNotFound, message: "no such event")
        case .invalidJoinCode:
            RPCError(Media.ErrorReason.invalidJoinCode, message: "a join code is 6 characters from 2-9 and A-Z without I and O")
        case .joinCodeNotFound:
            RPCError(Media.ErrorReason.joinCodeNotFound, message: "no event has that join code")
        case .invalidTitle:
            RPCError(Media.ErrorReason.invalidTitle, message: "title must be 1-100 characters")
        case .invalidReleaseTime:
            RPCError(Media.ErrorReason.invalidReleaseTime, message: "release_at must be in the future, at most a year ahead")
        case .invalidPhotoLimit:
            RPCError(Media.ErrorReason.invalidPhotoLimit, message: "max_photos_per_member must be 1-100")
        case .invalidLocation:
            RPCError(Media.ErrorReason.invalidLocation, message: "latitude must be -90…90, longitude -180…180, name at most 200 characters")
        case .invalidDescription:
            RPCError(Media.ErrorReason.invalidDescription, message: "description must be at most 2000 characters")
        case .eventPhotoLimitReached(let limit):
            RPCError(Media.ErrorReason.eventPhotoLimitReached, message: "you have added your \(limit) photos to this event",
                     details: ["limit": String(limit)])
        case .notEventAdmin:
            RPCError(Media.ErrorReason.notEventAdmin, message: "only the event's creator or admins may do this")
        case .photoNotFound:
            RPCError(Media.ErrorReason.photoNotFound, message: "no such photo in this event")
        case .invalidPhotoID:
            RPCError(Media.ErrorReason.invalidPhotoID, message: "photo_id is not a UUID")
        case .invalidInviter:
            RPCError(Media.ErrorReason.invalidInviter, message: "invited_by is not a member of this event")
        case .invalidRole:
            RPCError(Media.ErrorReason.invalidRole, message: "role must be ADMIN or MEMBER")
        case .memberNotFound:
            RPCError(Media.ErrorReason.memberNotFound, message: "no such member of this event")
        case .invalidPageToken:
            RPCError(Media.ErrorReason.invalidPageToken, message: "page_token is not one of ours")
        case .invalidPageSize:
            RPCError(Media.ErrorReason.invalidPageSize, message: "page_size must not be negative")
        case .imageUnreadable:
            RPCError(Media.ErrorReason.imageUnreadable, message: "the photo cannot be decoded as an image, so it is not served")
        case .storageUnavailable(let detail):
            RPCError(Media.ErrorReason.storageUnavailable, message: "media storage is unavailable: \(detail); try again later")
        }
    }
}
