package import CryptoCore
package import RPC

/// Why an access token was refused; always UNAUTHENTICATED on the wire, except when the keys
/// to check it could not be fetched (UNAVAILABLE).
package struct AuthFailure: Error, Sendable, Hashable, CustomStringConvertible, RPCErrorConvertible {
    /// The ErrorInfo reason.
    package enum Reason: String, Sendable, Hashable {
        case missingToken = "MISSING_TOKEN"
        case malformedToken = "MALFORMED_TOKEN"
        case unknownKey = "UNKNOWN_KEY"
        case badSignature = "BAD_SIGNATURE"
        case expired = "TOKEN_EXPIRED"
        case notYetValid = "TOKEN_NOT_YET_VALID"
        case wrongIssuer = "WRONG_ISSUER"
        case wrongApp = "WRONG_APP"
        case keysUnavailable = "KEYS_UNAVAILABLE"
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

    package var description: String { "AuthFailure(\(reason.rawValue))" }

    package var rpcError: RPCError {
        switch reason {
        case .keysUnavailable:
            RPCError(code: .unavailable, message: "cannot verify tokens right now", reason: reason.rawValue)
        case .expired:
            RPCError(code: .unauthenticated, message: "access token expired", reason: reason.rawValue)
        case .missingToken:
            RPCError(code: .unauthenticated, message: "sign in first", reason: reason.rawValue)
        default:
            RPCError(code: .unauthenticated, message: "invalid access token", reason: reason.rawValue)
        }
    }
}
