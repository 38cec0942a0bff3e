import RPC
import ServiceLifecycle

/// Keeps grpc.health.v1 (which the Kubernetes readiness probe asks) saying what `/readyz`
/// says, re-evaluated every `interval`; stops on graceful shutdown, when the server's own
/// shutdown marks everything NOT_SERVING for good. It first runs `onServing`, which declares the
/// process serving from inside the service group (see `ServiceMain`).
struct ReadinessPublisherService: Service, CustomStringConvertible {
    let readiness: Readiness
    let health: HealthService
    var interval: Duration = .seconds(1)
    /// Runs first: what makes the process serving and says so (`ServiceMain`).
    var onServing: @Sendable () async -> Void = {}

    var description: String { "readiness publisher" }

    func run() async {
        await onServing()
        let (readiness, health, interval) = (readiness, health, interval)
        await cancelWhenGracefulShutdown {
            await readiness.publish(every: interval) { health.setReadiness($0) }
        }
    }
}
