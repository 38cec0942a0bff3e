import HTTP2
import RPC

/// Runs `body` against a live RPCServer on 127.0.0.1 (port 0) and an RPCClient connected to it,
/// then closes both.
func withServer<T>(
    services: [any RPCService] = [EchoService()],
    interceptors: [any ServerInterceptor] = [],
    loopCount: Int = 1,
    configure: (inout RPCServerConfiguration) -> Void = { _ in },
    clientMaxReceiveMessageSize: Int = 4 << 20,
    _ body: (RPCServer, RPCClient) async throws -> T
) async throws -> T {
    var configuration = RPCServerConfiguration()
    configuration.loopCount = loopCount
    configure(&configuration)
    let server = try RPCServer(configuration: configuration, services: services, interceptors: interceptors)
    let port = try server.start()
    let client = RPCClient(host: "127.0.0.1", port: port, maxReceiveMessageSize: clientMaxReceiveMessageSize)
    do {
        let result = try await body(server, client)
        client.close()
        await server.shutdown(gracePeriod: .seconds(1))
        return result
    } catch {
        client.close()
        await server.shutdown(gracePeriod: .seconds(1))
        throw error
    }
}

/// The RPCError a call threw; records an issue and returns nil when it threw nothing or
/// something else.
func rpcError(_ body: () async throws -> Void) async -> RPCError? {
    do {
        try await body()
        return nil
    } catch let error as RPCError {
        return error
    } catch {
        return RPCError(code: StatusCode(rawValue: -1), message: "not an RPCError: \(error)")
    }
}

/// Measures how long `body` takes.
func elapsed<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try await body()
    return (result, clock.now - start)
}
