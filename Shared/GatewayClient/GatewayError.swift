public import ContractTypes
public import RPCCore

/// What every gateway call throws: the gRPC status code, the user-facing message, and the
/// machine-readable ErrorInfo reason (`EMAIL_TAKEN`, `TOO_MANY_ATTEMPTS`, …) with its details.
/// Failures on the client's side use the same type: a lost connection is UNAVAILABLE, a call
/// that ran out of time DEADLINE_EXCEEDED, and a session that is gone `isSignedOut`.
public typealias GatewayError = RPCError

extension RPCError {
    /// The reason of the error that says the user must sign in again.
    public static let signedOutReason = Platform.ErrorReason.signedOut.name ?? "SIGNED_OUT"

    /// The reason as identity's contract types it, for a `switch` (`.emailTaken`,
    /// `.tooManyAttempts`, …); nil when the error carries another contract's reason or none.
    public var identityReason: Identity.ErrorReason? { reason(as: Identity.ErrorReason.self) }

    /// The reason as the platform's contract types it: what any service or the client itself
    /// may answer (`.tokenExpired`, `.dbUnavailable`, `.signedOut`, …).
    public var platformReason: Platform.ErrorReason? { reason(as: Platform.ErrorReason.self) }

    /// True when there is no usable session any more: none was saved, or Identity refused to
    /// refresh it (spent, revoked or expired). The stored session has been cleared; show sign-in.
    public var isSignedOut: Bool { code == .unauthenticated && reason == Self.signedOutReason }

    /// UNAUTHENTICATED `SIGNED_OUT`; `details["cause"]` holds why, e.g. Identity's
    /// `REFRESH_TOKEN_REUSED` or `NO_SESSION`.
    static func signedOut(cause: String) -> RPCError {
        RPCError(Platform.ErrorReason.signedOut, message: "signed out; sign in again", details: ["cause": cause])
    }

    /// Turns whatever a call threw into the gateway's error type.
    static func gateway(_ error: any Error) -> RPCError {
        switch error {
        case let error as RPCError: return error
        case is CancellationError: return RPCError(code: .cancelled, message: "the call was cancelled")
        case let error as FileTokenStoreError:
            return RPCError(Platform.ErrorReason.tokenStoreFailed, message: "the session could not be stored: \(error)")
        default:
            return RPCError(Platform.ErrorReason.tokenStoreFailed, message: "the session store failed: \(error)")
        }
    }
}
