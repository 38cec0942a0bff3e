#if canImport(Glibc)
import Glibc
#endif
import RPC

/// `interop-server`: gRPC's interoperability TestService on 127.0.0.1:7199 (RV_INTEROP_HOST,
/// RV_INTEROP_PORT, or `--port N`), plus grpc.health.v1.Health.
@main
struct InteropMain {
    static func main() async throws {
        var configuration = RPCServerConfiguration()
        configuration.host = environment("RV_INTEROP_HOST") ?? "127.0.0.1"
        configuration.port = 7199
        if let text = environment("RV_INTEROP_PORT") {
            guard let port = Int(text), (0...65535).contains(port) else {
                fail("RV_INTEROP_PORT must be a port number, got \(text)")
            }
            configuration.port = port
        }
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--port":
                guard let text = arguments.popFirst(), let port = Int(text), (0...65535).contains(port) else {
                    fail("--port needs a port number")
                }
                configuration.port = port
            case "--host":
                guard let host = arguments.popFirst() else { fail("--host needs an address") }
                configuration.host = host
            default:
                fail("unknown argument \(argument); usage: interop-server [--host ADDR] [--port N]")
            }
        }
        let signals = SignalWaiter(signals: [SIGINT, SIGTERM])
        let server = try RPCServer(configuration: configuration, services: [TestService()])
        let port = try server.start()
        print("interop-server listening on \(configuration.host):\(port)")
        fflush(nil)
        let signal = await signals.wait()
        print("interop-server: signal \(signal), draining")
        fflush(nil)
        await server.shutdown(gracePeriod: .seconds(5))
    }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    static func fail(_ message: String) -> Never {
        print("interop-server: \(message)")
        exit(2)
    }
}
