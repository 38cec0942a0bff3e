import GatewayClient
import GatewayClientHTTP2
import RPC
import Testing

/// Runs `body` with a GatewayClient connected to `service` on a live RPCServer (127.0.0.1,
/// ephemeral port), then stops both.
func withScriptedServer<T>(
    _ service: any RPCService,
    store: any TokenStore = InMemoryTokenStore(),
    configureServer: (inout RPCServerConfiguration) -> Void = { _ in },
    configure: (inout GatewayConfiguration) -> Void = { _ in },
    _ body: (GatewayClient) async throws -> T
) async throws -> T {
    var serverConfiguration = RPCServerConfiguration()
    serverConfiguration.loopCount = 1
    configureServer(&serverConfiguration)
    let server = try RPCServer(configuration: serverConfiguration, services: [service])
    let port = try server.start()
    var configuration = GatewayConfiguration(host: "127.0.0.1", port: port, security: .plaintext, app: "swivo",
                                             retryPolicy: .fast)
    configure(&configuration)
    let client = try GatewayClient(configuration: configuration, tokenStore: store)
    defer { client.close() }
    do {
        let result = try await body(client)
        client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
        return result
    } catch {
        client.close()
        await server.shutdown(gracePeriod: .milliseconds(200))
        throw error
    }
}

extension RetryPolicy {
    /// Four attempts with millisecond backoffs: retry tests that do not wait for real.
    static let fast = RetryPolicy(maxAttempts: 4, initialBackoff: .milliseconds(5), maxBackoff: .milliseconds(20),
                                  maxTotalTime: .seconds(10))
}

/// Runs `body` and returns the GatewayError it threw (nil if it did not throw; an issue is
/// recorded if it threw anything else).
func gatewayError(_ body: () async throws -> Void) async -> GatewayError? {
    do {
        try await body()
        return nil
    } catch let error as GatewayError {
        return error
    } catch {
        Issue.record("expected a GatewayError, got \(error)")
        return nil
    }
}
