package import HTTP2
import Synchronization

extension RPCClient {
    /// A plain HTTP GET of `target` (path and query) on the client's HTTP/2 connection, as an
    /// image loader fetches a signed download URL from the same host. Bodies larger than
    /// `maxBodySize` fail the call (RESOURCE_EXHAUSTED); a call that takes longer than `timeout`
    /// is reset (DEADLINE_EXCEEDED).
    package func get(_ target: String, headers: [(name: String, value: String)] = [], timeout: Duration = .seconds(30),
                     maxBodySize: Int = 64 << 20) async throws -> PlainHTTPResponse {
        let connection = try await connection()
        var head = [HTTP2Header(":method", "GET"), HTTP2Header(":scheme", scheme), HTTP2Header(":path", target),
                    HTTP2Header(":authority", "\(host):\(port)"), HTTP2Header("user-agent", "rendezvous-swift/1.0")]
        for (name, value) in headers { head.append(HTTP2Header(name.lowercased(), value)) }
        let call = PlainGetCall(maxBodySize: maxBodySize)
        let stream = connection.makeStream(delegate: call)
        call.stream = stream
        let timer = Task {
            try await Task.sleep(for: timeout)
            call.fail(RPCError(code: .deadlineExceeded, message: "GET \(target) took longer than \(timeout)"))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                call.start(continuation)
                stream.send(headers: head, end: .endStream)
            }
        } onCancel: {
            call.fail(RPCError(code: .cancelled, message: "GET cancelled"))
        }
    }
}

/// Collects one GET's response head and body; resumes its caller once, on the end, a reset or
/// a failure.
final class PlainGetCall: HTTP2StreamDelegate, @unchecked Sendable {
    // @unchecked Sendable: `state` is behind a Mutex; `stream` is set once before the request is sent.
    private struct State {
        var continuation: CheckedContinuation<PlainHTTPResponse, any Error>?
        var response = PlainHTTPResponse(status: 0)
        var finished = false
        /// A failure before `start` gave the continuation.
        var early: (any Error)?
    }

    private let state = Mutex(State())
    private let maxBodySize: Int
    var stream: HTTP2Stream?

    init(maxBodySize: Int) { self.maxBodySize = maxBodySize }

    func start(_ continuation: CheckedContinuation<PlainHTTPResponse, any Error>) {
        let early = state.withLock { state -> (any Error)? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(throwing: early) }
    }

    func fail(_ error: any Error) {
        finish(.failure(error))
        stream?.reset()
    }

    private func finish(_ result: Result<PlainHTTPResponse, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<PlainHTTPResponse, any Error>? in
            guard !state.finished else { return nil }
            state.finished = true
            if state.continuation == nil, case .failure(let error) = result { state.early = error }
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }

    func didReceiveHeaders(_ headers: [HTTP2Header], endStream: Bool) {
        state.withLock { state in
            for header in headers {
                if header.name == ":status" {
                    state.response.status = Int(header.value) ?? 0
                } else {
                    state.response.headers.append((header.name, header.value))
                }
            }
        }
        if endStream { didReceiveEnd() }
    }

    func didReceiveData(_ bytes: UnsafeRawBufferPointer) {
        let tooLarge = state.withLock { state -> Bool in
            guard state.response.body.count + bytes.count <= maxBodySize else { return true }
            state.response.body.append(contentsOf: bytes)
            return false
        }
        stream?.consume(bytes.count)
        if tooLarge { fail(RPCError(code: .resourceExhausted, message: "the response is larger than \(maxBodySize) bytes")) }
    }

    func didReceiveEnd() {
        let response = state.withLock { state -> PlainHTTPResponse in
            state.response.contentLength = state.response.body.count
            return state.response
        }
        finish(.success(response))
    }

    func didClose(errorCode: UInt32) {
        finish(.failure(RPCError(code: .unavailable, message: "the stream closed before the response ended (code \(errorCode))")))
    }
}
