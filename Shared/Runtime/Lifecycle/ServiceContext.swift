package import Auth
package import Logging
package import RPC
import Synchronization

/// What a service's set-up closure gets from `ServiceMain`: its configuration, logger and
/// metrics, and hooks to register background jobs, readiness checks, interceptors and closers.
package final class ServiceContext: Sendable {
    /// The validated common settings.
    package let configuration: ServiceConfiguration
    /// The service's logger (label: the service name).
    package let logger: Logger
    /// The service's metrics, exposed at `/metrics`.
    package let metrics: RuntimeMetrics
    /// What `/readyz` reports.
    package let readiness: Readiness
    /// Typed access to the environment for the service's own settings.
    package let environment: EnvironmentReader
    /// The process's list of revoked sessions and stale accounts: kept current by
    /// `followRevocations`, consulted by the interceptor `makeAuthInterceptor` returns.
    package let revocations = RevocationList()

    /// A long-running job; cancelled (task cancellation) once the gRPC server has drained.
    package typealias BackgroundJob = @Sendable () async throws -> Void
    /// Releases a resource at exit, after the jobs have stopped.
    package typealias Closer = @Sendable () async throws -> Void

    private struct Registrations {
        var jobs: [(name: String, job: BackgroundJob)] = []
        var closers: [(name: String, closer: Closer)] = []
        var interceptors: [any ServerInterceptor] = []
        var httpHandler: (any PlainHTTPHandler)?
    }

    private let registrations = Mutex(Registrations())

    /// A context with nothing registered yet.
    package init(configuration: ServiceConfiguration, logger: Logger, metrics: RuntimeMetrics,
                 readiness: Readiness, environment: Environment = Environment()) {
        self.configuration = configuration
        self.environment = EnvironmentReader(environment: environment)
        self.logger = logger
        self.metrics = metrics
        self.readiness = readiness
    }

    /// Runs `job` for the life of the process. Returning early is fine; throwing (other than
    /// `CancellationError`) shuts the service down with a non-zero exit status.
    package func addBackgroundJob(_ name: String, _ job: @escaping BackgroundJob) {
        registrations.withLock { $0.jobs.append((name, job)) }
    }

    /// Runs `closer` at shutdown after the server has drained and the jobs have stopped;
    /// closers run in the reverse order of registration.
    package func onShutdown(_ name: String, _ closer: @escaping Closer) {
        registrations.withLock { $0.closers.append((name, closer)) }
    }

    /// `/readyz` answers 503 (and grpc.health.v1 NOT_SERVING) while `check` throws or takes
    /// longer than two seconds; its result is reused for a second.
    package func addReadinessCheck(_ name: String, _ check: @escaping Readiness.Check) {
        readiness.addCheck(name, check)
    }

    /// Adds an interceptor after the runtime's logging and metrics ones (e.g. authentication).
    package func addInterceptor(_ interceptor: any ServerInterceptor) {
        registrations.withLock { $0.interceptors.append(interceptor) }
    }

    /// Serves plain HTTP GET/HEAD for the paths `handler` claims, over HTTP/2 on the gRPC port and
    /// over HTTP/1.1 on the admin port (one handler per service; a later call replaces it).
    package func setHTTPHandler(_ handler: any PlainHTTPHandler) {
        registrations.withLock { $0.httpHandler = handler }
    }

    var httpHandler: (any PlainHTTPHandler)? { registrations.withLock { $0.httpHandler } }
    var jobs: [(name: String, job: BackgroundJob)] { registrations.withLock { $0.jobs } }
    var closers: [(name: String, closer: Closer)] { registrations.withLock { $0.closers } }
    var interceptors: [any ServerInterceptor] { registrations.withLock { $0.interceptors } }

    /// Runs every closer, newest first, logging failures.
    func runClosers() async {
        for (name, closer) in closers.reversed() {
            do {
                try await closer()
            } catch {
                logger.error("closing failed", metadata: ["resource": .string(name), "error": .string("\(error)")])
            }
        }
    }
}
