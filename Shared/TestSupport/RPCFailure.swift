package import RPC

/// The status and reason a call failed with; nil when it succeeded (or failed with something
/// other than a gRPC status).
package func reason(of call: () async throws -> Void) async -> (code: StatusCode, reason: String?)? {
    do {
        try await call()
        return nil
    } catch let error as RPCError {
        return (error.code, error.reason)
    } catch {
        return nil
    }
}
