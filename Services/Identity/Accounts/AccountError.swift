import Contracts
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

        var reason: Identity.ErrorReason {
            switch self {
            case .malformed: .idTokenMalformed
            case .unknownKey: .idTokenUnknownKey
            case .badSignature: .idTokenBadSignature
            case .expired: .idTokenExpired
            case .notYetValid: .idTokenNotYetValid
            case .wrongIssuer: .idTokenWrongIssuer
            case .wrongAudience: .idTokenWrongAudience
            case .nonceMismatch: .idTokenNonceMismatch
            }
        }
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
            RPCError(Identity.ErrorReason.invalidProvider, message: "choose Apple or Google")
        case .nonceRequired:
            RPCError(Identity.ErrorReason.nonceRequired, message: "the sign-in request needs the nonce the app generated")
        case .providerNotConfigured:
            RPCError(Identity.ErrorReason.providerNotConfigured, message: "this way of signing in is not set up on the server")
        case .idToken(let problem):
            RPCError(problem.reason, message: "the sign-in could not be verified; try again")
        case .invalidPhone:
            RPCError(Identity.ErrorReason.invalidPhone,
                     message: "enter the phone number with its country code, e.g. +14155550123")
        case .codeSendThrottled(let retryAfter):
            RPCError(Identity.ErrorReason.codeSendThrottled, message: "a code was sent recently; wait before asking for another", details: ["retry_after_seconds": String(retryAfter)])
        case .codeDeliveryFailed:
            RPCError(Identity.ErrorReason.codeDeliveryFailed, message: "the code could not be sent; try again later")
        case .invalidCode(let remaining):
            RPCError(Identity.ErrorReason.invalidCode, message: "that code is not right",
                     details: ["attempts_remaining": String(remaining)])
        case .codeExpired:
            RPCError(Identity.ErrorReason.codeExpired, message: "that code has expired; ask for a new one")
        case .codeAttemptsExhausted:
            RPCError(Identity.ErrorReason.codeAttemptsExhausted, message: "too many wrong codes; ask for a new one")
        case .noActiveCode:
            RPCError(Identity.ErrorReason.noActiveCode, message: "no code is waiting for this number; ask for a new one")
        case .phoneTaken:
            RPCError(Identity.ErrorReason.phoneTaken, message: "another account already uses this phone number")
        case .providerIdentityTaken:
            RPCError(Identity.ErrorReason.providerIdentityTaken, message: "that account is already used by another account here")
        case .alreadyLinked(let method):
            RPCError(Identity.ErrorReason.alreadyLinked, message: "this account already has a sign-in of that kind", details: ["method": method])
        }
    }
}
