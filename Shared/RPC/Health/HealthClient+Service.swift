extension HealthClient {
    /// The status of `service` ("" for the whole server); NOT_FOUND for an unknown service.
    package func check(service: String = "", options: CallOptions = CallOptions()) async throws -> HealthCheckResponse.ServingStatus {
        try await check(HealthCheckRequest(service: service), options: options).status
    }

    /// The status of `service` now and at every change, until the call is cancelled.
    package func watch(service: String = "", options: CallOptions = CallOptions()) async throws
        -> StreamingCall<HealthCheckRequest, HealthCheckResponse> {
        try await watch(HealthCheckRequest(service: service), options: options)
    }
}
