import RPC

/// Failures of Apple/Google and phone sign-in, linking and deletion, and the one place that
/// decides their gRPC status and reason (identity.proto's header lists them).
enum AccountError: Error, Sendable, Equatable, RPCErrorConvertible {
    /// What was wrong with a provider's ID token; each is UNAUTHENTICATED `ID_TOKEN_<…>`.
    enum TokenProblem: String, Sendable {
        case malformed = "ID_TOKEN_MALFORMED"
        case unknownKey = "ID_TOKEN_UNKNOWN_KEY"
        case badSignature = "ID_TOKEN_BAD_SIGNATURE"
        case expired = "ID_TOKEN_EXPIRED"
        case notYetValid = "ID_TOKEN_NOT_YET_VALID"
        case wrongIssuer = "ID_TOKEN_WRONG_ISSUER"
        case wrongAudience = "ID_TOKEN_WRONG_AUDIENCE"
        case nonceMismatch = "ID_TOKEN_NONCE_MISMATCH"
    }

    case invalidProvider
    case nonceRequired
    case providerNotConfigured
    case idToken(TokenProblem)
    case invalidPhone
    case codeSendThrottled(retryAfterSeconds: Int64)
    case codeDeliveryFailed
    case invalidCode(attemptsRemaining: Int)
    case codeExpired
    case codeAttemptsExhausted
    case noActiveCode
    case phoneTaken
    case providerIdentityTaken
    /// The account already has a credential of this kind (`method`: apple, google, email, phone).
    case alreadyLinked(method: String)

    var rpcError: RPCError {
        switch self {
        case .invalidProvider:
            RPCError(code: .invalidArgument, message: "choose Apple or Google", reason: "INVALID_PROVIDER")
        case .nonceRequired:
            RPCError(code: .invalidArgument, message: "the sign-in request needs the nonce the app generated",
                     reason: "NONCE_REQUIRED")
        case .providerNotConfigured:
            RPCError(code: .failedPrecondition, message: "this way of signing in is not set up on the server",
                     reason: "PROVIDER_NOT_CONFIGURED")
        case .idToken(let problem):
            RPCError(code: .unauthenticated, message: "the sign-in could not be verified; try again", reason: problem.rawValue)
        case .invalidPhone:
            RPCError(code: .invalidArgument, message: "enter the phone number with its country code, e.g. +14155550123",
                     reason: "INVALID_PHONE")
        case .codeSendThrottled(let retryAfter):
            RPCError(code: .resourceExhausted, message: "a code was sent recently; wait before asking for another",
                     reason: "CODE_SEND_THROTTLED", details: ["retry_after_seconds": String(retryAfter)])
        case .codeDeliveryFailed:
            RPCError(code: .unavailable, message: "the code could not be sent; try again later", reason: "CODE_DELIVERY_FAILED")
        case .invalidCode(let remaining):
            RPCError(code: .unauthenticated, message: "that code is not right", reason: "INVALID_CODE",
                     details: ["attempts_remaining": String(remaining)])
        case .codeExpired:
            RPCError(code: .unauthenticated, message: "that code has expired; ask for a new one", reason: "CODE_EXPIRED")
        case .codeAttemptsExhausted:
            RPCError(code: .resourceExhausted, message: "too many wrong codes; ask for a new one",
                     reason: "CODE_ATTEMPTS_EXHAUSTED")
        case .noActiveCode:
            RPCError(code: .failedPrecondition, message: "no code is waiting for this number; ask for a new one",
                     reason: "NO_ACTIVE_CODE")
        case .phoneTaken:
            RPCError(code: .alreadyExists, message: "another account already uses this phone number", reason: "PHONE_TAKEN")
        case .providerIdentityTaken:
            RPCError(code: .alreadyExists, message: "that account is already used by another account here",
                     reason: "PROVIDER_IDENTITY_TAKEN")
        case .alreadyLinked(let method):
            RPCError(code: .alreadyExists, message: "this account already has a sign-in of that kind",
                     reason: "ALREADY_LINKED", details: ["method": method])
        }
    }
}
