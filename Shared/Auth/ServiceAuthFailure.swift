package import RPC

/// Why a call to an internal method was refused.
package struct ServiceAuthFailure: Error, Sendable, Hashable, CustomStringConvertible, RPCErrorConvertible {
    /// The ErrorInfo reason.
    package enum Reason: String, Sendable, Hashable {
        /// No `authorization: Service …` credential (none at all, or a user's bearer token).
        case missingCredential = "MISSING_SERVICE_CREDENTIAL"
        /// Malformed, an unknown service, or a wrong secret: deliberately one reason.
        case badCredential = "BAD_SERVICE_CREDENTIAL"
        /// A known service that this method does not admit.
        case notAllowed = "SERVICE_NOT_ALLOWED"
    }

    package var reason: Reason

    package init(_ reason: Reason) { self.reason = reason }

    package var description: String { "ServiceAuthFailure(\(reason.rawValue))" }

    package var rpcError: RPCError {
        switch reason {
        case .missingCredential:
            RPCError(code: .unauthenticated, message: "this method is only for services inside the deployment",
                     reason: reason.rawValue)
        case .badCredential:
            RPCError(code: .unauthenticated, message: "invalid service credential", reason: reason.rawValue)
        case .notAllowed:
            RPCError(code: .permissionDenied, message: "this service may not call this method", reason: reason.rawValue)
        }
    }
}
