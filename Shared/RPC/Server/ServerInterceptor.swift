/// Runs around every handler: logging, metrics, authentication.
package protocol ServerInterceptor: Sendable {
    /// Calls `next` to continue the chain, or throws to end the call with a status.
    nonisolated(nonsending) func intercept(_ context: ServerCallContext, next: nonisolated(nonsending) () async throws -> Void) async throws
}
