#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The UDP socket on 127.0.0.1 that nginx's workers send their `rv_metrics` access log lines to
/// (syslog over UDP: nginx never blocks on it), read on a thread of its own and counted.
///
/// Loopback UDP loses a datagram only when the socket's receive buffer is full; the buffer is
/// raised to hold a few seconds of a busy edge's lines. The socket is rendezvous-edge's for its
/// whole life (the thread reads until the process exits), so nothing closes it.
final class EdgeLogReceiver: @unchecked Sendable {
    // @unchecked Sendable: `fd` is set in init and never changes; only the reading thread uses it
    // after `start`.
    private let fd: Int32

    /// Binds 127.0.0.1:`port` (UDP).
    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw EdgeRunnerError("socket: \(String(cString: strerror(errno)))") }
        var size: Int32 = 4 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw EdgeRunnerError("bind udp 127.0.0.1:\(port): \(message)")
        }
    }

    /// Reads datagrams until the process exits, passing each response to `record`.
    func start(_ record: @escaping @Sendable (EdgeResponse) -> Void) {
        let fd = self.fd
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 8192)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0 {
                    if errno == EINTR { continue }
                    return
                }
                if let response = EdgeResponse(datagram: String(decoding: buffer[..<count], as: UTF8.self)) {
                    record(response)
                }
            }
        }
        thread.name = "rv-edge-log"
        thread.start()
    }
}

/// A start-up failure of rendezvous-edge, with the reason to print.
struct EdgeRunnerError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
