import Contracts
import RPC

/// Profile updates that break a rule, and the one place that decides their status and reason.
enum ProfileError: Error, Sendable, Equatable, RPCErrorConvertible {
    case invalidUsername
    case usernameTaken
    case updateMaskRequired
    case unknownField(String)
    case invalidBirthDate
    case underage(minimumAge: Int)
    case birthDateRequired
    case invalidGender
    case invalidLocation
    case invalidPhotoID
    case tooManyPhotos(maximum: Int)

    var rpcError: RPCError {
        switch self {
        case .invalidUsername:
            RPCError(Identity.ErrorReason.invalidUsername, message: "a username has \(Username.lengths.lowerBound) to \(Username.lengths.upperBound) letters, digits or underscores")
        case .usernameTaken:
            RPCError(Identity.ErrorReason.usernameTaken, message: "that username is taken")
        case .updateMaskRequired:
            RPCError(Identity.ErrorReason.updateMaskRequired, message: "update_mask must name the fields to change")
        case .unknownField(let name):
            RPCError(Identity.ErrorReason.unknownField, message: "update_mask names a field that cannot be changed", details: ["field": String(name.prefix(64))])
        case .invalidBirthDate:
            RPCError(Identity.ErrorReason.invalidBirthDate, message: "that is not a valid birth date")
        case .underage(let minimumAge):
            RPCError(Identity.ErrorReason.underage, message: "you must be at least \(minimumAge) to use this app", details: ["minimum_age": String(minimumAge)])
        case .birthDateRequired:
            RPCError(Identity.ErrorReason.birthDateRequired, message: "this app needs your birth date")
        case .invalidGender:
            RPCError(Identity.ErrorReason.invalidGender, message: "unknown gender")
        case .invalidLocation:
            RPCError(Identity.ErrorReason.invalidLocation, message: "latitude must be within ±90 and longitude within ±180")
        case .invalidPhotoID:
            RPCError(Identity.ErrorReason.invalidPhotoID, message: "photo ids must be distinct UUIDs")
        case .tooManyPhotos(let maximum):
            RPCError(Identity.ErrorReason.tooManyPhotos, message: "a profile holds at most \(maximum) photos", details: ["max_count": String(maximum)])
        }
    }
}
