#if canImport(Glibc)
import Glibc
#endif

/// The outcome of one read or write on a transport.
enum TransportResult {
    case bytes(Int)
    case wouldBlock(wantsWrite: Bool)
    case closed
    case failed(String)
}

/// The byte pipe under an HTTP/2 connection: a plain socket or TLS over one.
protocol ByteTransport: AnyObject {
    /// Advances the handshake; `.bytes(0)` once application data may flow.
    func handshake() -> TransportResult
    func read(into buffer: UnsafeMutableRawBufferPointer) -> TransportResult
    func write(_ bytes: UnsafeRawBufferPointer) -> TransportResult
    /// The negotiated application protocol, when the transport negotiates one.
    var negotiatedProtocol: String? { get }
    /// Best-effort orderly close of the transport layer; the caller closes the descriptor.
    func shutdown()
}

/// h2c with prior knowledge: bytes straight to and from the socket.
final class PlainTransport: ByteTransport {
    private let fd: Int32

    init(fd: Int32) { self.fd = fd }

    func handshake() -> TransportResult { .bytes(0) }

    var negotiatedProtocol: String? { nil }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> TransportResult {
        let n = recv(fd, buffer.baseAddress, buffer.count, 0)
        if n > 0 { return .bytes(n) }
        if n == 0 { return .closed }
        switch errno {
        case EAGAIN, EWOULDBLOCK, EINTR: return .wouldBlock(wantsWrite: false)
        case ECONNRESET, EPIPE: return .closed
        default: return .failed(String(cString: strerror(errno)))
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> TransportResult {
        let n = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if n >= 0 { return .bytes(n) }
        switch errno {
        case EAGAIN, EWOULDBLOCK, EINTR: return .wouldBlock(wantsWrite: true)
        case ECONNRESET, EPIPE: return .closed
        default: return .failed(String(cString: strerror(errno)))
        }
    }

    func shutdown() {}
}
