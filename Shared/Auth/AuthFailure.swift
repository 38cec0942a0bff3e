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
        default: "invalid access token"
        }
        return RPCError(reason.contractReason, message: message)
    }
}
