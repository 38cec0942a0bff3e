internal import CNGHTTP2
import Synchronization

/// A whole HTTP/2 response: status, header fields and body.
package struct HTTP2Response: Sendable {
    /// The `:status` pseudo-header (0 when the peer sent none).
    package var status: Int
    /// The response head's fields other than `:status`.
    package var headers: [HTTP2Header]
    package var body: [UInt8]
}

/// A request that ended without a whole response.
package struct HTTP2RequestError: Error, CustomStringConvertible {
    package var reason: String
    package var description: String { "HTTP/2 request failed: \(reason)" }

    package init(reason: String) { self.reason = reason }
}

extension HTTP2Connection {
    /// Sends one request (`head` with its pseudo-headers, then `body` with END_STREAM) and
    /// returns the whole response; a body above `maxBodySize` resets the stream and throws.
    /// Cancelling the task resets the stream. Any thread.
    package func request(_ head: [HTTP2Header], body: [UInt8], maxBodySize: Int = 64 << 10) async throws -> HTTP2Response {
        let collector = ResponseCollector(maxBodySize: maxBodySize)
        let stream = makeStream(delegate: collector)
        collector.stream = stream
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTP2Response, any Error>) in
                collector.start(continuation)
                stream.send(headers: head, data: body, end: .endStream)
            }
        } onCancel: {
            stream.reset()
        }
    }
}

/// Collects one client stream's response for `HTTP2Connection.request`.
private final class ResponseCollector: HTTP2StreamDelegate, @unchecked Sendable {
    // @unchecked Sendable: the continuation is guarded by `state`'s lock; the response fields are
    // touched only by the delegate callbacks, which all run on the stream's one event loop.

    let maxBodySize: Int
    weak var stream: HTTP2Stream?
    private let state = Mutex<CheckedContinuation<HTTP2Response, any Error>?>(nil)
    private var status = 0
    private var headers: [HTTP2Header] = []
    private var body: [UInt8] = []
    private var headReceived = false

    init(maxBodySize: Int) { self.maxBodySize = maxBodySize }

    func start(_ continuation: CheckedContinuation<HTTP2Response, any Error>) {
        state.withLock { $0 = continuation }
    }

    private func finish(_ result: Result<HTTP2Response, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<HTTP2Response, any Error>? in
            defer { state = nil }
            return state
        }
        continuation?.resume(with: result)
    }

    func didReceiveHeaders(_ headers: [HTTP2Header], endStream: Bool) {
        if !headReceived {
            headReceived = true
            for header in headers {
                if header.name == ":status" {
                    status = Int(header.value) ?? 0
                } else if !header.name.hasPrefix(":") {
                    self.headers.append(header)
                }
            }
        }
        if endStream { didReceiveEnd() }
    }

    func didReceiveData(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        stream?.consume(count)
        guard body.count + count <= maxBodySize else {
            stream?.reset()
            finish(.failure(HTTP2RequestError(reason: "response body above \(maxBodySize) bytes")))
            return
        }
        body.append(contentsOf: bytes)
    }

    func didReceiveEnd() {
        finish(.success(HTTP2Response(status: status, headers: headers, body: body)))
    }

    func didClose(errorCode: UInt32) {
        finish(.failure(HTTP2RequestError(reason: headReceived ? "stream closed early (code \(errorCode))"
                                                                : "stream closed before a response (code \(errorCode))")))
    }
}

extension HTTP2Connection {
    /// Bytes held by this side's HPACK encoder table (RFC 7541 §4.1): what the header fields
    /// sent so far left indexed for the peer. Any thread.
    package func encoderTableSize() async -> Int {
        await withCheckedContinuation { continuation in
            loop.execute {
                continuation.resume(returning: self.session.map { nghttp2_session_get_hd_deflate_dynamic_table_size($0) } ?? 0)
            }
        }
    }
}
