import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RPCCore
import Synchronization

/// One GET of a signed download URL through the gRPC-Web transport's session: collects the
/// status, headers and body, and resumes its caller once at the end.
final class GRPCWebDownload: GRPCWebTaskHandler {
    private struct State {
        var continuation: CheckedContinuation<DownloadResponse, any Error>?
        var response = DownloadResponse(status: 0, headers: [], body: [])
    }

    private let state = Mutex(State())
    /// The largest body accepted (the HTTP/2 transport's limit too).
    static let maxBodySize = 64 << 20

    func start(_ continuation: CheckedContinuation<DownloadResponse, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func didReceive(_ response: HTTPURLResponse) -> Bool {
        let headers = response.allHeaderFields.compactMap { key, value -> (name: String, value: String)? in
            guard let name = key as? String, let value = value as? String else { return nil }
            return (name.lowercased(), value)
        }
        state.withLock { state in
            state.response.status = response.statusCode
            state.response.headers = headers
        }
        return true
    }

    func didReceive(_ data: Data) {
        let tooLarge = state.withLock { state -> Bool in
            state.response.body.append(contentsOf: data)
            return state.response.body.count > Self.maxBodySize
        }
        if tooLarge { finish(.failure(RPCError(code: .resourceExhausted, message: "the download is larger than 64 MiB"))) }
    }

    func didComplete(error: (any Error)?) {
        guard let error else {
            finish(.success(state.withLock { $0.response }))
            return
        }
        switch (error as? URLError)?.code {
        case .timedOut?: finish(.failure(RPCError(code: .deadlineExceeded, message: "the download took too long")))
        case .cancelled?: finish(.failure(RPCError(code: .cancelled, message: "the download was cancelled")))
        default: finish(.failure(RPCError(code: .unavailable, message: "the download failed: \(error.localizedDescription)")))
        }
    }

    private func finish(_ result: Result<DownloadResponse, any Error>) {
        let continuation = state.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }
}
