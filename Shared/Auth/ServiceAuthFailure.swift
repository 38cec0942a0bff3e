import Contracts
package import RPC

/// Why a call to an internal method was refused.
package struct ServiceAuthFailure: Error, Sendable, Hashable, CustomStringConvertible, RPCErrorConvertible {
    /// The ErrorInfo reason.
    package enum Reason: Sendable, Hashable, CaseIterable {
        /// No `authorization: Service …` credential (none at all, or a user's bearer token).
        case missingCredential
        /// Malformed, an unknown service, or a wrong secret: deliberately one reason.
        case badCredential
        /// A known service that this method does not admit.
        case notAllowed

        /// The reason on the wire, from the platform contract (which also gives its status).
        var contractReason: Platform.ErrorReason {
            switch self {
            case .missingCredential: .missingServiceCredential
            case .badCredential: .badServiceCredential
            case .notAllowed: .serviceNotAllowed
            }
        }
    }

    package var reason: Reason

    package init(_ reason: Reason) { self.reason = reason }

    package var description: String { "ServiceAuthFailure(\(reason.contractReason.name ?? "?"))" }

    package var rpcError: RPCError {
        let message = switch reason {
        case .missingCredential: "this method is only for services inside the deployment"
        case .badCredential: "invalid service credential"
        case .notAllowed: "this service may not call this method"
        }
        return RPCError(reason.contractReason, message: message)
    }
}
