#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import RPC
import Runtime

/// `interop-server --bare`: the same TestService on an `RPCServer` without the runtime around
/// it (no logging or metrics interceptors, no health service, no admin listener). It exists so
/// `make bench` can put the runtime's per-call cost next to the bare server's in one run; the
/// interop tests and deployments use the full runtime.
enum BareServer {
    static func run(arguments: [String]) async -> Never {
        let serverConfiguration: RPCServerConfiguration
        do {
            let configuration = try ServiceConfiguration.load(name: "interop", defaultPort: 7199, environment: .process,
                                                              arguments: arguments)
            serverConfiguration = try configuration.makeServerConfiguration()
        } catch {
            print("interop-server: configuration error: \(error)")
            exit(2)
        }
        let server: RPCServer
        let port: Int
        do {
            server = try RPCServer(configuration: serverConfiguration, services: [TestService()])
            port = try server.start()
        } catch {
            print("interop-server: could not start: \(error)")
            exit(1)
        }
        print("interop-server listening on \(serverConfiguration.host):\(port) (bare: no runtime interceptors)")
        fflush(nil)
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let (signals, received) = AsyncStream.makeStream(of: Int32.self)
        let sources = [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { received.yield(number) }
            source.resume()
            return source
        }
        for await _ in signals { break }
        withExtendedLifetime(sources) {}
        await server.shutdown(gracePeriod: .seconds(1))
        exit(0)
    }
}
