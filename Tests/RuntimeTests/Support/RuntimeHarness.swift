import Logging
import RPC
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

    init(adminReadTimeout: Duration = .seconds(5)) throws {
        var configuration = RPCServerConfiguration()
        configuration.loopCount = 1
        let logger = logs.logger(label: "harness")
        server = try RPCServer(configuration: configuration, services: [ProbeService()],
                               interceptors: [LoggingInterceptor(logger: logger), MetricsInterceptor(metrics: metrics)])
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
