#if canImport(Glibc)
import Glibc
#endif
import Runtime

/// `interop-server`: gRPC's interoperability TestService plus grpc.health.v1.Health, on
/// 127.0.0.1:7199 by default (RV_INTEROP_HOST / RV_INTEROP_PORT, or `--host ADDR` / `--port N`),
/// with the admin listener on the port + 100 (RV_INTEROP_ADMIN_PORT or `--admin-port N`).
///
/// `--bare` serves TestService alone, without the runtime's interceptors, health or admin
/// listener (BareServer: for the benchmark's per-call overhead figure).
///
/// Prints `interop-server listening on HOST:PORT` and `interop-server admin on HOST:PORT` to
/// standard output once both accept connections.
@main
struct InteropMain {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.contains("--bare") {
            await BareServer.run(arguments: arguments.filter { $0 != "--bare" })
        }
        await ServiceMain.run(name: "interop", defaultPort: 7199, arguments: arguments, onListening: { addresses in
            print("interop-server listening on \(addresses.host):\(addresses.port)")
            print("interop-server admin on \(addresses.host):\(addresses.adminPort)")
            fflush(nil)
        }) { _ in
            [TestService()]
        }
    }
}
