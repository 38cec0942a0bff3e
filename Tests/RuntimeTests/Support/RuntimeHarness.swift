import Logging
import RPC
import Synchronization
@testable import Runtime

/// An in-process server as `ServiceMain` assembles it: RPC server with the runtime's
/// interceptors, admin listener, metrics, readiness — all on port 0, no global state.
final class RuntimeHarness: Sendable {
    let metrics = RuntimeMetrics()
    let readiness = Readiness()
    let logs = LogCapture()
    let server: RPCServer
    let admin: AdminServer
    let port: Int
    let adminPort: Int
    private let recorder = ContextRecorder()

    /// The context of the most recent call, as handlers see it.
    var lastContext: ServerCallContext? { recorder.last.withLock { $0 } }

    /// Calls are logged to `logs`, or to `logger` when given.
    init(adminReadTimeout: Duration = .seconds(5), logger: Logger? = nil) throws {
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let logger = logger ?? logs.logger(label: "harness")
        server = try RPCServer(configuration: configuration, services: [ProbeService()],
                               interceptors: [LoggingInterceptor(logger: logger), MetricsInterceptor(metrics: metrics), recorder])
        admin = try AdminServer(host: "127.0.0.1", port: 0, routes: AdminRoutes(metrics: metrics, readiness: readiness),
                                readTimeout: adminReadTimeout)
        port = try server.start()
        adminPort = try admin.start()
        readiness.markServing()
    }

    func makeClient() -> RPCClient { RPCClient(host: "127.0.0.1", port: port) }

    func stop() async {
        await server.shutdown(gracePeriod: .zero)
        await admin.shutdown()
    }
}

/// Remembers the context of each call it sees.
final class ContextRecorder: ServerInterceptor {
    let last = Mutex<ServerCallContext?>(nil)

    nonisolated(nonsending) func intercept(_ context: ServerCallContext, next: nonisolated(nonsending) () async throws -> Void) async throws {
        last.withLock { $0 = context }
        try await next()
    }
}
