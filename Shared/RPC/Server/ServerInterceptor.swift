/// Runs around every handler: logging, metrics, authentication.
package protocol ServerInterceptor: Sendable {
    /// Calls `next` to continue the chain, or throws to end the call with a status.
    func intercept(_ context: ServerCallContext, next: () async throws -> Void) async throws
}
