import Contracts
import RPC

/// Identity's domain failures and the one place that decides their gRPC status and reason.
enum IdentityError: Error, Sendable, Equatable, RPCErrorConvertible {
    case unknownApp
    case signInMethodNotAllowed
    case invalidEmail
    case weakPassword(minimumLength: Int)
    case passwordTooLong
    case emailTaken
    case invalidCredentials
    case tooManyAttempts(retryAfterSeconds: Int64)
    case invalidRefreshToken
    case refreshTokenReused
    case sessionRevoked
    case sessionNotFound
    case invalidSessionID
    case accountNotFound

    var rpcError: RPCError {
        switch self {
        case .unknownApp:
            RPCError(Identity.ErrorReason.unknownApp, message: "unknown app")
        case .signInMethodNotAllowed:
            RPCError(Identity.ErrorReason.signInMethodNotAllowed, message: "this app does not offer that way of signing in")
        case .invalidEmail:
            RPCError(Identity.ErrorReason.invalidEmail, message: "that is not a valid email address")
        case .weakPassword(let minimumLength):
            RPCError(Identity.ErrorReason.weakPassword, message: "the password must have at least \(minimumLength) characters", details: ["minimum_length": String(minimumLength)])
        case .passwordTooLong:
            RPCError(Identity.ErrorReason.weakPassword, message: "the password is too long")
        case .emailTaken:
            RPCError(Identity.ErrorReason.emailTaken, message: "an account with this email already exists")
        case .invalidCredentials:
            RPCError(Identity.ErrorReason.invalidCredentials, message: "wrong email or password")
        case .tooManyAttempts(let retryAfter):
            RPCError(Identity.ErrorReason.tooManyAttempts, message: "too many failed attempts; try again later", details: ["retry_after_seconds": String(retryAfter)])
        case .invalidRefreshToken:
            RPCError(Identity.ErrorReason.invalidRefreshToken, message: "sign in again")
        case .refreshTokenReused:
            RPCError(Identity.ErrorReason.refreshTokenReused, message: "sign in again")
        case .sessionRevoked:
            RPCError(Identity.ErrorReason.sessionRevoked, message: "sign in again")
        case .sessionNotFound:
            RPCError(Identity.ErrorReason.sessionNotFound, message: "no such session")
        case .invalidSessionID:
            RPCError(Identity.ErrorReason.invalidSessionID, message: "session_id is not a UUID")
        case .accountNotFound:
            RPCError(Identity.ErrorReason.accountNotFound, message: "sign in again")
        }
    }
}
