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
            RPCError(code: .invalidArgument,
                     message: "a username has \(Username.lengths.lowerBound) to \(Username.lengths.upperBound) letters, digits or underscores",
                     reason: "INVALID_USERNAME")
        case .usernameTaken:
            RPCError(code: .alreadyExists, message: "that username is taken", reason: "USERNAME_TAKEN")
        case .updateMaskRequired:
            RPCError(code: .invalidArgument, message: "update_mask must name the fields to change",
                     reason: "UPDATE_MASK_REQUIRED")
        case .unknownField(let name):
            RPCError(code: .invalidArgument, message: "update_mask names a field that cannot be changed",
                     reason: "UNKNOWN_FIELD", details: ["field": String(name.prefix(64))])
        case .invalidBirthDate:
            RPCError(code: .invalidArgument, message: "that is not a valid birth date", reason: "INVALID_BIRTH_DATE")
        case .underage(let minimumAge):
            RPCError(code: .invalidArgument, message: "you must be at least \(minimumAge) to use this app",
                     reason: "UNDERAGE", details: ["minimum_age": String(minimumAge)])
        case .birthDateRequired:
            RPCError(code: .invalidArgument, message: "this app needs your birth date", reason: "BIRTH_DATE_REQUIRED")
        case .invalidGender:
            RPCError(code: .invalidArgument, message: "unknown gender", reason: "INVALID_GENDER")
        case .invalidLocation:
            RPCError(code: .invalidArgument, message: "latitude must be within ±90 and longitude within ±180",
                     reason: "INVALID_LOCATION")
        case .invalidPhotoID:
            RPCError(code: .invalidArgument, message: "photo ids must be distinct UUIDs", reason: "INVALID_PHOTO_ID")
        case .tooManyPhotos(let maximum):
            RPCError(code: .invalidArgument, message: "a profile holds at most \(maximum) photos",
                     reason: "TOO_MANY_PHOTOS", details: ["max_count": String(maximum)])
        }
    }
}
