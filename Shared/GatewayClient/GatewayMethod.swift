import RPCCore

/// How the gateway treats one RPC: whether it carries the session's access token, and whether
/// it may be sent again after a failure. Each service's API file declares its methods once.
struct GatewayMethod: Sendable, CustomStringConvertible {
    /// What repeating the call could do.
    enum Kind: Sendable {
        /// Creates or changes something, or spends a token (sign-up, sign-in, refresh, sign-out):
        /// never retried, since the first attempt may have taken effect.
        case write
        /// Changes state, but doing it twice leaves the same result (set a field to a value):
        /// retried when the server was unreachable.
        case idempotentWrite
        /// Reads only: retried when the server was unreachable or too slow.
        case read
    }

    /// Whether the call needs the signed-in session.
    enum Authentication: Sendable {
        case none
        /// `authorization: Bearer <access token>`; refreshed once and retried on UNAUTHENTICATED.
        case session
    }

    /// `Service/Method`, for messages.
    let name: String
    let kind: Kind
    let authentication: Authentication
    /// UNAUTHENTICATED reasons that refuse a credential the request itself carries (an ID token
    /// to link, a one-time code), not the session's access token: the call is not refreshed
    /// and sent again for them, which would only spend another attempt of that credential.
    let requestCredentialReasons: Set<String>

    init(_ name: String, _ kind: Kind, _ authentication: Authentication, requestCredentialReasons: Set<String> = []) {
        self.name = name
        self.kind = kind
        self.authentication = authentication
        self.requestCredentialReasons = requestCredentialReasons
    }

    var description: String { name }

    /// Whether UNAUTHENTICATED `error` may be the session's access token being refused, so that
    /// a refreshed token is worth one more try.
    func mayRefresh(after error: RPCError) -> Bool {
        guard authentication == .session, error.code == .unauthenticated else { return false }
        guard let reason = error.reason else { return true }
        return !requestCredentialReasons.contains(reason)
    }

    /// Whether an attempt that failed with `code` may be repeated.
    func mayRetry(after code: StatusCode) -> Bool {
        switch kind {
        case .write: false
        case .idempotentWrite: code == .unavailable
        case .read: code == .unavailable || code == .deadlineExceeded
        }
    }
}
