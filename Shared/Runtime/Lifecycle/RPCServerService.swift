import Logging
import RPC
import ServiceLifecycle

/// The gRPC server as a `Service`: on graceful shutdown it marks the process not ready, then
/// GOAWAY and drain for up to the grace period (`RPCServer.shutdown`, which also sets every
/// health status to NOT_SERVING).
struct RPCServerService: Service, CustomStringConvertible {
    let server: RPCServer
    let readiness: Readiness
    let gracePeriod: Duration
    let logger: Logger

    var description: String { "rpc-server" }

    func run() async throws {
        let cancelled: Bool
        do {
            try await gracefulShutdown()
            cancelled = false
        } catch {
            cancelled = true
        }
        readiness.markDraining()
        logger.info("draining", metadata: ["grace_seconds": .stringConvertible(gracePeriod.components.seconds)])
        await server.shutdown(gracePeriod: cancelled ? .zero : gracePeriod)
        logger.info("rpc server stopped")
    }
}
