import GatewayClient
import RPC

/// The gateway client's calls on RPC's HTTP/2 client.
struct HTTP2GatewayConnection: GatewayConnection {
    let rpc: RPCClient

    var carriesBidirectionalStreams: Bool { true }

    func openStream(path: String, kind: CallKind, options: CallOptions) async throws -> any ClientStream {
        try await rpc.openStream(path: path, kind: kind, options: options)
    }

    func download(_ target: String, timeout: Duration) async throws -> DownloadResponse {
        let response = try await rpc.get(target, timeout: timeout)
        return DownloadResponse(status: response.status, headers: response.headers, body: response.body)
    }

    func close() { rpc.close() }
}
