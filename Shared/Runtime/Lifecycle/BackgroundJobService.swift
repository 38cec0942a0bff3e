import Logging
import ServiceLifecycle

/// A background job as a `Service`: cancelled on graceful shutdown.
struct BackgroundJobService: Service, CustomStringConvertible {
    let name: String
    let job: ServiceContext.BackgroundJob
    let logger: Logger

    var description: String { "job \(name)" }

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown(job)
        } catch is CancellationError {
            return
        } catch {
            logger.error("background job failed", metadata: ["job": .string(name), "error": .string("\(error)")])
            throw error
        }
    }
}
