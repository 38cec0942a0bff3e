package import RPC

extension ServerCallContext {
    private static let callingServiceKey = "auth.calling_service"

    /// The service that called, when a `ServiceAuthInterceptor` verified its credential.
    package var callingService: String? {
        get { self[value: Self.callingServiceKey] }
        set { self[value: Self.callingServiceKey] = newValue }
    }

    /// The calling service, or UNAUTHENTICATED `MISSING_SERVICE_CREDENTIAL`: a second line of
    /// defence in internal handlers, should a server be assembled without the interceptor.
    package func requireService() throws(ServiceAuthFailure) -> String {
        guard let callingService else { throw ServiceAuthFailure(.missingCredential) }
        return callingService
    }
}
