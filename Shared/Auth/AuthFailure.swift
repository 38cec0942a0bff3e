import Contracts
package import CryptoCore
package import RPC

/// Why an access token was refused; always UNAUTHENTICATED on the wire, except when the keys
/// to check it could not be fetched (UNAVAILABLE).
package struct AuthFailure: Error, Sendable, Hashable, CustomStringConvertible, RPCErrorConvertible {
    /// What was wrong; each is one `rendezvous.platform.v1.ErrorReason`.
    package enum Reason: Sendable, Hashable, CaseIterable {
        case missingToken, malformedToken, unknownKey, badSignature, expired, notYetValid, wrongIssuer, wrongApp
        case keysUnavailable
        /// The token's session was revoked (`RevocationList`).
        case revoked
        /// The account's claims changed after the token was issued (`RevocationList`).
        case stale

        /// The reason on the wire, from the platform contract (which also gives its status).
        var contractReason: Platform.ErrorReason {
            switch self {
            case .missingToken: .missingToken
            case .malformedToken: .malformedToken
            case .unknownKey: .unknownKey
            case .badSignature: .badSignature
            case .expired: .tokenExpired
            case .notYetValid: .tokenNotYetValid
            case .wrongIssuer: .wrongIssuer
            case .wrongApp: .wrongApp
            case .keysUnavailable: .keysUnavailable
            case .revoked: .tokenRevoked
            case .stale: .tokenStale
            }
        }
    }

    package var reason: Reason

    package init(_ reason: Reason) { self.reason = reason }

    /// The failure for a `JWS.verify` or `JWTClaimsValidator` error.
    package init(_ error: CryptoError) {
        switch error.code {
        case .unknownKeyID: self.init(.unknownKey)
        case .badSignature: self.init(.badSignature)
        case .expired: self.init(.expired)
        case .notYetValid: self.init(.notYetValid)
        case .wrongIssuer: self.init(.wrongIssuer)
        case .wrongAudience: self.init(.wrongApp)
        default: self.init(.malformedToken)
        }
    }

    package var description: String { "AuthFailure(\(reason.contractReason.name ?? "?"))" }

    package var rpcError: RPCError {
        let message = switch reason {
        case .keysUnavailable: "cannot verify tokens right now"
        case .expired: "access token expired"
        case .missingToken: "sign in first"
        case .revoked: "session signed out; sign in again"
        case .stale: "account changed; refresh the session"
        default: "invalid access token"
        }
        return RPCError(reason.contractReason, message: message)
    }
}
