package import RPC

/// Guards a service's internal methods, those only other services of the deployment may call:
/// each needs a `ServiceCredential` that `credentials` accepts and that the method's
/// `ServiceAccess` admits. The caller's name goes into `context.callingService`. Methods not
/// in `methods` pass untouched (the user `AuthInterceptor` handles them; list these methods
/// among its public ones so it does not ask for a user token too).
///
/// Refusals: UNAUTHENTICATED `MISSING_SERVICE_CREDENTIAL` or `BAD_SERVICE_CREDENTIAL`,
/// PERMISSION_DENIED `SERVICE_NOT_ALLOWED`. With no credentials configured every call to a
/// guarded method is refused.
package struct ServiceAuthInterceptor: ServerInterceptor {
    package let credentials: ServiceCredentials
    /// Full paths (`/package.Service/Method`) of the internal methods and who may call each.
    package let methods: [String: ServiceAccess]

    package init(credentials: ServiceCredentials, methods: [String: ServiceAccess]) {
        self.credentials = credentials
        self.methods = methods
    }

    /// The paths this interceptor guards.
    package var guardedMethods: Set<String> { Set(methods.keys) }

    nonisolated(nonsending) package func intercept(_ context: ServerCallContext, next: nonisolated(nonsending) () async throws -> Void) async throws {
        guard let access = methods[context.path] else { return try await next() }
        context.callingService = try authenticate(context.requestMetadata, access: access)
        try await next()
    }

    /// The name of the service `metadata` authenticates, if `access` admits it.
    func authenticate(_ metadata: Metadata, access: ServiceAccess) throws(ServiceAuthFailure) -> String {
        guard let header = metadata[string: "authorization"] else { throw ServiceAuthFailure(.missingCredential) }
        let credential = try ServiceCredential(authorization: header)
        guard credentials.accepts(credential) else { throw ServiceAuthFailure(.badCredential) }
        guard access.allows(credential.name) else { throw ServiceAuthFailure(.notAllowed) }
        return credential.name
    }
}
