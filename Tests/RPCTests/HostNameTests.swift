#if canImport(Glibc)
import Glibc
#endif
import RPC
import Testing

/// Clients reach servers by name, as services do in compose and Kubernetes (`identity:7101`):
/// the system resolver (/etc/hosts, then DNS) is asked on every connect.
@Suite struct HostNameTests {
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = gethostname(&buffer, buffer.count)
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }  // gethostname NUL-terminates within 256
    }

    @Test func aClientReachesAServerByTheMachinesName() async throws {
        try await withServer(configure: { $0.host = "0.0.0.0" }) { server, _ in
            let client = RPCClient(host: Self.hostName(), port: server.port)
            defer { client.close() }
            let status = try await HealthLiveTests.check(client, "")
            #expect(status == .serving)
        }
    }

    @Test func anUnknownName_isUnavailable_namingTheResolversAnswer() async throws {
        let client = RPCClient(host: "rv-no-such-host.invalid", port: 7101)
        defer { client.close() }
        let error = await rpcError { _ = try await HealthLiveTests.check(client, "") }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("resolve rv-no-such-host.invalid failed") == true, "\(String(describing: error?.message))")
    }
}
