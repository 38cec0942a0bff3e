import HTTP2
import IOLoop
import Synchronization
import Wire

/// One HTTP/2 stream driven by hand, for requests our RPCClient would never send (a wrong
/// content-type, a `grpc-timeout` it does not enforce itself).
final class RawStream: HTTP2StreamDelegate, @unchecked Sendable {
    // @unchecked Sendable: `stream` and `connection` are set once in `open` before the stream is
    // used; everything the loop writes is behind the Mutex.

    struct Received: Sendable {
        /// Header blocks in order: the response head, then the trailers.
        var headerBlocks: [[HTTP2Header]] = []
        var data: [UInt8] = []
        var ended = false
        var closeCode: UInt32?
    }

    private let received = Mutex(Received())
    private(set) var stream: HTTP2Stream!
    private(set) var connection: HTTP2Connection!

    /// Opens a connection to 127.0.0.1:`port` and sends `headers`, then `body` (with END_STREAM
    /// when `end`).
    static func open(port: Int, headers: [HTTP2Header], body: [UInt8] = [], end: Bool = true) async throws -> RawStream {
        let raw = RawStream()
        raw.connection = try await HTTP2Client.connect(host: "127.0.0.1", port: port, loop: EventLoopGroup.shared.next())
        raw.stream = raw.connection.makeStream(delegate: raw)
        raw.stream.send(headers: headers, data: body, end: end ? .endStream : nil)
        return raw
    }

    /// A gRPC request head for `path`.
    static func grpcHead(path: String, port: Int, contentType: String = "application/grpc",
                         extra: [HTTP2Header] = []) -> [HTTP2Header] {
        [
            HTTP2Header(":method", "POST"),
            HTTP2Header(":scheme", "http"),
            HTTP2Header(":path", path),
            HTTP2Header(":authority", "127.0.0.1:\(port)"),
            HTTP2Header("content-type", contentType),
            HTTP2Header("te", "trailers"),
        ] + extra
    }

    /// Waits until the stream closed; nil after `timeout`.
    func waitUntilClosed(timeout: Duration = .seconds(5)) async -> Received? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            let snapshot = received.withLock { $0 }
            if snapshot.closeCode != nil { return snapshot }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    func close() { connection.closeSoon() }

    func didReceiveHeaders(_ headers: [HTTP2Header], endStream: Bool) {
        received.withLock { $0.headerBlocks.append(headers) }
    }

    func didReceiveData(_ bytes: UnsafeRawBufferPointer) {
        received.withLock { $0.data.append(contentsOf: bytes) }
        stream.consume(bytes.count)
    }

    func didReceiveEnd() {
        received.withLock { $0.ended = true }
    }

    func didClose(errorCode: UInt32) {
        received.withLock { $0.closeCode = errorCode }
    }
}

extension RawStream.Received {
    /// A header from the last block (the trailers, or a Trailers-Only response).
    func trailer(_ name: String) -> String? { headerBlocks.last?[first: name] }
    func head(_ name: String) -> String? { headerBlocks.first?[first: name] }
}
