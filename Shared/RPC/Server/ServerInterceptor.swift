/// Runs around every handler: logging, metrics, authentication.
package protocol ServerInterceptor: Sendable {
    /// Calls `next` to continue the chain, or throws to end the call with a status. Both run on
    /// the caller's executor (the call's event loop): nonisolated(nonsending), so a step of the
    /// chain does not ask for the generic executor on the way in and out.
    nonisolated(nonsending) func intercept(_ context: ServerCallContext, next: nonisolated(nonsending) () async throws -> Void) async throws
}
