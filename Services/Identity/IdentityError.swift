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
            RPCError(code: .invalidArgument, message: "unknown app", reason: "UNKNOWN_APP")
        case .signInMethodNotAllowed:
            RPCError(code: .failedPrecondition, message: "this app does not offer that way of signing in",
                     reason: "SIGN_IN_METHOD_NOT_ALLOWED")
        case .invalidEmail:
            RPCError(code: .invalidArgument, message: "that is not a valid email address", reason: "INVALID_EMAIL")
        case .weakPassword(let minimumLength):
            RPCError(code: .invalidArgument, message: "the password must have at least \(minimumLength) characters",
                     reason: "WEAK_PASSWORD", details: ["minimum_length": String(minimumLength)])
        case .passwordTooLong:
            RPCError(code: .invalidArgument, message: "the password is too long", reason: "WEAK_PASSWORD")
        case .emailTaken:
            RPCError(code: .alreadyExists, message: "an account with this email already exists", reason: "EMAIL_TAKEN")
        case .invalidCredentials:
            RPCError(code: .unauthenticated, message: "wrong email or password", reason: "INVALID_CREDENTIALS")
        case .tooManyAttempts(let retryAfter):
            RPCError(code: .resourceExhausted, message: "too many failed attempts; try again later",
                     reason: "TOO_MANY_ATTEMPTS", details: ["retry_after_seconds": String(retryAfter)])
        case .invalidRefreshToken:
            RPCError(code: .unauthenticated, message: "sign in again", reason: "INVALID_REFRESH_TOKEN")
        case .refreshTokenReused:
            RPCError(code: .unauthenticated, message: "sign in again", reason: "REFRESH_TOKEN_REUSED")
        case .sessionRevoked:
            RPCError(code: .unauthenticated, message: "sign in again", reason: "SESSION_REVOKED")
        case .sessionNotFound:
            RPCError(code: .notFound, message: "no such session", reason: "SESSION_NOT_FOUND")
        case .invalidSessionID:
            RPCError(code: .invalidArgument, message: "session_id is not a UUID", reason: "INVALID_SESSION_ID")
        case .accountNotFound:
            RPCError(code: .unauthenticated, message: "sign in again", reason: "ACCOUNT_NOT_FOUND")
        }
    }
}
