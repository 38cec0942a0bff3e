/// Typed client stub of `grpc.health.v1.Health`.
package struct HealthClient: Sendable {
    package let client: RPCClient

    package init(client: RPCClient) { self.client = client }

    /// The status of `service` ("" for the whole server); NOT_FOUND for an unknown service.
    package func check(service: String = "", options: CallOptions = CallOptions()) async throws -> HealthCheckResponse.ServingStatus {
        try await client.unary(path: "/grpc.health.v1.Health/Check", request: HealthCheckRequest(service: service),
                               as: HealthCheckResponse.self, options: options).message.status
    }

    /// The status of `service` now and at every change, until the call is cancelled.
    package func watch(service: String = "", options: CallOptions = CallOptions()) async throws
        -> StreamingCall<HealthCheckRequest, HealthCheckResponse> {
        try await client.serverStreaming(path: "/grpc.health.v1.Health/Watch", request: HealthCheckRequest(service: service),
                                         options: options)
    }
}
